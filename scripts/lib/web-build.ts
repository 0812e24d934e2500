/**
 * Builds the branded trading page (`web/`, React + Vite) into `web/dist`, which the api serves
 * (api/web.ts). Used by `npm run build:web`, `npm run dev` and the page's end-to-end test.
 */
import path from 'node:path';
import { build } from 'vite';

const WEB = path.resolve(import.meta.dirname, '../../web');

/** Runs `vite build` on `web/` (its vite.config.ts); resolves with the output directory. */
export async function buildWeb(opts: { quiet?: boolean } = {}): Promise<string> {
  await build({ root: WEB, configFile: path.join(WEB, 'vite.config.ts'), logLevel: opts.quiet ? 'error' : 'info' });
  return path.join(WEB, 'dist');
}
