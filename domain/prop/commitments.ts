/**
 * What a firm commits on-chain, computed the same way by the api (deploy dry run, deposit
 * instructions) and the activities (deploy, deposits, payouts). Pure.
 *
 * The rules hash (PropInstance `rulesHash`): keccak256 of the UTF-8 bytes of the rules' canonical
 * JSON — object keys sorted by code unit at every level, no whitespace, arrays in their order,
 * strings and numbers as `JSON.stringify` writes them (decimals stay the strings they are). Anyone
 * holding the published rules can recompute it. Platform ids (firm, prop account, payout) go
 * on-chain as {@link idBytes32}.
 */
import { keccak256, toBytes, type Hex } from 'viem';

/** Canonical JSON of a JSON value (module doc). @throws Error on a value JSON cannot carry (undefined, bigint, function). */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return JSON.stringify(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`not a JSON number: ${v}`);
    return JSON.stringify(v);
  }
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  throw new Error(`not a JSON value: ${typeof v}`);
}

/** keccak256 of the canonical JSON of `rules`, 0x-hex bytes32. */
export function rulesHash(rules: unknown): Hex {
  return keccak256(toBytes(canonicalJson(rules)));
}

/** bytes32 of a platform id (keccak256 of its UTF-8), as the PropInstance stores firm, prop account and payout ids. */
export const idBytes32 = (id: string): Hex => keccak256(new TextEncoder().encode(id));
