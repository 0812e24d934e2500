/**
 * The repository root, found the same way from the TypeScript sources (`node --import tsx`) and
 * from the compiled output (`dist/`, `npm run build`): the nearest directory at or above this
 * module's own directory that holds a `package.json`. Every file that reads something kept in the
 * repository (recorded market data, contract artifacts, `web/dist`, `.data/`) resolves it from here,
 * never from its own location, so the compiled tree needs no copies of those files.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

let cached: string | undefined;

/**
 * The absolute path of the repository root (the directory holding `package.json`).
 * @throws Error when no directory above this module holds a `package.json` (a broken install).
 */
export function projectRoot(): string {
  if (cached) return cached;
  for (let dir = import.meta.dirname; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return (cached = dir);
    if (dir === path.dirname(dir))
      throw new Error(`no package.json in ${import.meta.dirname} or any directory above it`);
  }
}

/** `projectRoot()` joined with `parts` (e.g. `fromRoot('data/recorded')`). */
export function fromRoot(...parts: string[]): string {
  return path.join(projectRoot(), ...parts);
}
