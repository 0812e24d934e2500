/**
 * `npm run compile-contracts`: compiles contracts/*.sol with solc-js (the `solc` npm package, the
 * compiler version pinned by package.json and by each file's `pragma solidity 0.8.28`) and writes
 * `contracts/artifacts/<Contract>.json` = `{ contractName, sourceName, compiler, abi, bytecode,
 * deployedBytecode }`, deterministically (same sources → same bytes: no metadata hash, sorted
 * output). The artifacts are committed; modules/prop/chain/artifacts.ts loads them.
 * Exits 1 on any compiler error.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import solc from 'solc';

const SOLC = '0.8.28';
if (!solc.version().startsWith(`${SOLC}+`)) {
  console.error(
    `solc-js ${solc.version()} is installed; the artifacts are built with ${SOLC} (npm install solc@${SOLC})`,
  );
  process.exit(1);
}
const ROOT = path.resolve(import.meta.dirname, '..');
const DIR = path.join(ROOT, 'contracts');
const sources = Object.fromEntries(
  readdirSync(DIR)
    .filter((f) => f.endsWith('.sol'))
    .sort()
    .map((f) => [f, { content: readFileSync(path.join(DIR, f), 'utf8') }]),
);
const input = {
  language: 'Solidity',
  sources,
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: 'cancun',
    metadata: { bytecodeHash: 'none', appendCBOR: false },
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
  },
};
const output = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
for (const e of output.errors ?? []) console.error(e.formattedMessage);
if (errors.length) process.exit(1);
for (const [sourceName, contracts] of Object.entries(
  output.contracts as Record<
    string,
    Record<string, { abi: unknown; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
  >,
)) {
  for (const [contractName, c] of Object.entries(contracts)) {
    if (!c.evm.bytecode.object) continue; // interfaces
    const artifact = {
      contractName,
      sourceName,
      compiler: `solc ${solc.version()}`,
      abi: c.abi,
      bytecode: `0x${c.evm.bytecode.object}`,
      deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
    };
    writeFileSync(path.join(DIR, 'artifacts', `${contractName}.json`), `${JSON.stringify(artifact, null, 2)}\n`);
    console.log(
      `contracts/artifacts/${contractName}.json  ${(c.evm.bytecode.object.length / 2).toLocaleString('en-US')} bytes`,
    );
  }
}
