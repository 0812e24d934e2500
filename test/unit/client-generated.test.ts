/**
 * The generated half of the TypeScript client (clients/typescript/src/generated/, README "TypeScript client") is
 * what `docs/openapi.json` and `docs/asyncapi.json` generate now: regenerated in memory
 * (scripts/lib/client-codegen.ts) and compared byte for byte, so a changed document without
 * `npm run client:generate` fails here.
 */
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../project-root.js';
import { GENERATED_CLIENT_FILES, generatedClientFiles } from '../../scripts/lib/client-codegen.js';

describe('TypeScript client, generated part', () => {
  let generated: Awaited<ReturnType<typeof generatedClientFiles>>;
  beforeAll(async () => {
    generated = await generatedClientFiles();
  });

  for (const file of GENERATED_CLIENT_FILES)
    it(`${file} is what docs/openapi.json generates`, async () => {
      const committed = await readFile(fromRoot(file), 'utf8').catch(() => '(missing)');
      expect(
        committed === generated[file],
        `${file} is out of date with the API documents: run \`npm run client:generate\` and commit the result`,
      ).toBe(true);
    });

  it('names the writes that take an Idempotency-Key, compose among them; types every channel', () => {
    expect(generated['clients/typescript/src/generated/operations.ts']).toContain("'POST /api/v1/oms/intents'");
    const frames = generated['clients/typescript/src/generated/asyncapi.ts'];
    for (const channel of ['/ws/risk', '/ws/quotes', '/ws/market']) expect(frames).toContain(`'${channel}': {`);
    expect(frames).toContain("'Order-Intent-Update': components['schemas']['ws_risk.Order-Intent-Update'];");
  });
});
