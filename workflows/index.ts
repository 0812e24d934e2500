/** The workflow bundle entry: every workflow the worker runs. */
export { intentWorkflow } from './intent.js';
