/**
 * The signup verification token is a secret (issue 16): it goes out in the mail only. The api's log
 * says a verification mail was queued and where the dev mailbox wrote it, never the token or the link.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { startApi, type RunningApi } from '../../api/server.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait.js';

describe('signup log', () => {
  let s: Stack;
  let api: RunningApi;
  let mailDir: string;
  const lines: string[] = [];
  beforeAll(async () => {
    mailDir = await mkdtemp(path.join(tmpdir(), 'mail-'));
    s = await startStack({ worker: false, env: { MAIL_DIR: mailDir } });
    // A second api on the stack's configuration whose log this test reads.
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    api = await startApi({ config: s.config, orm: s.orm, logger });
  });
  afterAll(async () => {
    await api?.stop();
    await s?.stop();
    await rm(mailDir, { recursive: true, force: true });
  });

  it('logs the queued mail and its mailbox file, never the verification token', async () => {
    const slug = `log-${Date.now().toString(36)}`;
    const res = await fetch(`${api.baseUrl}/api/public/tenants/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'owner@example.com', slug }),
    });
    expect(res.status).toBe(202);
    // The outbox is shared by every process on the test database, so this api's flush may write other
    // tests' mails too: find this signup's mail (subject `Verify <slug>`), waiting until it holds the token.
    const { file, token } = await waitFor(
      async () => {
        for (const name of await readdir(mailDir)) {
          const text = await readFile(path.join(mailDir, name), 'utf8');
          if (text.includes(`Subject: Verify ${slug}\n`))
            return { file: name, token: /"token":"([A-Za-z0-9_-]+)"/.exec(text)?.[1] };
        }
        return { file: undefined, token: undefined };
      },
      (m) => m.token !== undefined,
    );
    const log = lines.join('');
    expect(log).toContain('tenant signup: verification mail queued');
    expect(log).toContain(file!);
    expect(log).not.toContain(token);
    expect(log).not.toContain('verify?token=');
  });
});
