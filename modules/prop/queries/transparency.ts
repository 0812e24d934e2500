/**
 * The public transparency reads (docs/api.md §1, §2.12, §4.9; no auth, no tenant): every live firm's
 * bundle (at most 200, oldest first) and one live firm's, each cached 30 s server-side in this
 * process; concurrent reads from other api processes in the same window attach to the same running
 * workflow (modules/prop/queries/prop-proof.ts).
 */
import { ApiError } from '../../../domain/errors.js';
import { Firm } from '../../../db/entities.js';
import { platformEm } from '../../../db/orm.js';
import { TRANSPARENCY_CACHE_MS } from '../workflows/transparency.definitions.js';
import type { ApiDeps } from '../../../api/context.js';
import { firmBundles } from './prop-proof.js';

/** At most this many firms in the index (docs/api.md §4.9). */
const MAX_FIRMS = 200;

/** The transparency reads of one api process, with their 30 s cache. */
export function transparencyReads(deps: ApiDeps) {
  const cache = new Map<string, { at: number; body: Promise<unknown> }>();
  const proofDeps = { temporal: deps.temporal, taskQueue: deps.config.temporal.taskQueue };

  /** The cached answer for `key`, computed by `make` at most once per window. */
  function cached<T>(key: string, make: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = cache.get(key);
    if (hit && now - hit.at < TRANSPARENCY_CACHE_MS) return hit.body as Promise<T>;
    for (const [k, v] of cache) if (now - v.at >= TRANSPARENCY_CACHE_MS) cache.delete(k);
    const body = make();
    cache.set(key, { at: now, body });
    body.catch(() => cache.delete(key));
    return body;
  }

  return {
    /** Every live firm's bundle and when it was read: `{ firms, cachedAt }`. */
    index: () =>
      cached('index', async () => {
        const em = platformEm(deps.orm);
        const firms = await em.find(
          Firm,
          { status: 'live' },
          { orderBy: { createdAt: 'asc', id: 'asc' }, limit: MAX_FIRMS, filters: false },
        );
        return { firms: await firmBundles(proofDeps, em, firms, 'all'), cachedAt: new Date().toISOString() };
      }),
    /** One live firm's bundle. @throws ApiError `404 firm_not_found` when it does not exist or is not live. */
    firm: async (firmId: string) => {
      const em = platformEm(deps.orm);
      const firm = await em.findOne(Firm, { id: firmId, status: 'live' }, { filters: false });
      if (!firm) throw new ApiError('firm_not_found', `no live firm ${firmId}`);
      return cached(`firm ${firm.id}`, async () => (await firmBundles(proofDeps, em, [firm], firm.id))[0]);
    },
  };
}
