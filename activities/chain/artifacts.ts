/**
 * The compiled contracts committed under contracts/artifacts/ (scripts/compile-contracts.ts):
 * `{ contractName, abi, bytecode }` per contract, loaded once.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Abi, Hex } from 'viem';

/** A compiled contract: its ABI and creation bytecode. */
export interface Artifact {
  contractName: string;
  abi: Abi;
  bytecode: Hex;
}

const DIR = path.resolve(import.meta.dirname, '../../contracts/artifacts');
const cache = new Map<string, Artifact>();

/** The artifact of `name` (e.g. `PropInstance`). @throws Error when it was never compiled. */
export function artifact(name: 'PropInstance' | 'TestStablecoin'): Artifact {
  let a = cache.get(name);
  if (!a) {
    a = JSON.parse(readFileSync(path.join(DIR, `${name}.json`), 'utf8')) as Artifact;
    cache.set(name, a);
  }
  return a;
}
