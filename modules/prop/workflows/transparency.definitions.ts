/** Contract of the transparency read `transparency-<all | firmId>-<window>` (modules/prop/workflows/transparency.ts, docs/api.md §4.9). */

/** Server-side cache window of the transparency routes (docs/api.md §4.9, §8: 30 s). */
export const TRANSPARENCY_CACHE_MS = 30_000;

/** Workflow id of one transparency read: `transparency-<all | firmId>-<window start, epoch ms>`. */
export const transparencyWorkflowId = (scope: string, windowStartMs: number) =>
  `transparency-${scope}-${windowStartMs}`;
