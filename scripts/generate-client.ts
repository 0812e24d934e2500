/**
 * `npm run client:generate` (README "TypeScript client"): regenerates the generated half of the TypeScript
 * client, `clients/typescript/src/generated/` (scripts/lib/client-codegen.ts), from `docs/openapi.json` and
 * `docs/asyncapi.json`. Run it after `npm run docs:api` changes them; test/unit/client-generated.test.ts fails
 * until then.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fromRoot } from '../project-root.js';
import { generatedClientFiles } from './lib/client-codegen.js';

for (const [file, text] of Object.entries(await generatedClientFiles())) {
  const target = fromRoot(file);
  if ((await readFile(target, 'utf8').catch(() => '')) === text) {
    console.log(`${file}: up to date`);
    continue;
  }
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, text);
  console.log(`${file}: regenerated (${text.split('\n').length - 1} lines)`);
}
