/** `npm run build:web`: builds the branded trading page into `web/dist` (scripts/lib/web-build.ts). */
import { buildWeb } from './lib/web-build.js';

console.log(`built ${await buildWeb()}`);
