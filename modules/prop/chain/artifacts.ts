/**
 * The compiled contracts committed under contracts/artifacts/ (written by
 * scripts/compile-contracts.ts, solc-js 0.8.28): `{ contractName, abi, bytecode, … }` per
 * contract, loaded and checked once per process.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Abi, Hex } from 'viem';
import { fromRoot } from '../../../project-root.js';

/** The contracts of contracts/*.sol. */
export type ContractName = 'PropInstance' | 'TestStablecoin';

/** A compiled contract: its ABI and creation bytecode (0x-hex, no constructor arguments). */
export interface Artifact {
  contractName: ContractName;
  abi: Abi;
  bytecode: Hex;
}

const DIR = fromRoot('contracts/artifacts');
const cache = new Map<ContractName, Artifact>();

/**
 * The artifact of `name`.
 * @throws Error when the file is missing or not an artifact (run `npm run compile-contracts`).
 */
export function artifact(name: ContractName): Artifact {
  let a = cache.get(name);
  if (!a) {
    const file = path.join(DIR, `${name}.json`);
    let parsed: Partial<Artifact>;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Artifact>;
    } catch (err) {
      throw new Error(
        `contract artifact ${file} cannot be read (npm run compile-contracts): ${(err as Error).message}`,
        { cause: err },
      );
    }
    if (
      parsed.contractName !== name ||
      !Array.isArray(parsed.abi) ||
      typeof parsed.bytecode !== 'string' ||
      !/^0x([0-9a-f]{2})+$/i.test(parsed.bytecode)
    ) {
      throw new Error(`contract artifact ${file} is not the compiled ${name} (npm run compile-contracts)`);
    }
    a = parsed as Artifact;
    cache.set(name, a);
  }
  return a;
}
