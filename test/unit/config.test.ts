/**
 * config.ts (README "Configuration", "Configuration checks", "Connecting to a Temporal cluster"):
 * NODE_ENV=production refuses the development defaults in one message naming each; bad Temporal
 * TLS combinations and unreadable PEM files are refused at start with a message naming the
 * variable and file; temporal-connection.ts turns the settings into the SDK's options; and
 * `--print-config` on the real api and worker entry points prints every variable with secrets
 * redacted (exit 0) or the errors (exit 1).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, loadTemporalConfig, redactedConfig } from '../../config.js';
import { temporalConnectionOptions } from '../../temporal-connection.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** How long a `--print-config` child may take (ms), and the test that runs it. */
const CHILD_TIMEOUT_MS = 120_000;
const TEST_TIMEOUT_MS = CHILD_TIMEOUT_MS + 10_000;
const BASE = {
  DATABASE_URL: 'postgres://platform:db-password-1@db.internal:5432/platform',
  JWT_SECRET: 'a-production-secret-of-forty-characters!!',
};
const RING = `prod1:${Buffer.alloc(32, 1).toString('base64')},old2:${Buffer.alloc(32, 2).toString('base64')}`;

/** The message loadConfig throws for `env`, or '' when it accepts it. */
function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
    return '';
  } catch (err) {
    return (err as Error).message;
  }
}

let dir: string;
let pem: { cert: string; key: string; ca: string; notPem: string };
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'config-test-'));
  const write = (name: string, text: string) => (writeFileSync(path.join(dir, name), text), path.join(dir, name));
  pem = {
    cert: write('client.pem', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'),
    key: write('client.key', '-----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY-----\n'),
    ca: write('ca.pem', '-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n'),
    notPem: write('ca.der', 'binary, not PEM'),
  };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('NODE_ENV=production refuses development defaults', () => {
  it('names each refused variable in one message: the dev JWT secret, a dev/test key ring, private webhook targets, the crash hook', () => {
    const message = refusal({
      ...BASE,
      NODE_ENV: 'production',
      JWT_SECRET: 'dev:0123456789abcdef0123456789abcdef0123456789abcdef',
      AGENT_KEY_ENCRYPTION_KEYS: `dev1:${Buffer.alloc(32, 3).toString('base64')}`,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      FAULT_CRASH: 'before:dispatchIntent:1',
    });
    const lines = message.split('\n');
    expect(lines[0]).toBe('invalid configuration:');
    expect(lines.slice(1).map((l) => l.trim().split(':')[0])).toEqual([
      'JWT_SECRET',
      'AGENT_KEY_ENCRYPTION_KEYS',
      'WEBHOOK_ALLOW_PRIVATE',
      'FAULT_CRASH',
    ]);
    expect(message).toContain('`npm run dev` generated');
    for (const l of lines.slice(1)) expect(l).toContain('(refused with NODE_ENV=production)');
    expect(
      refusal({
        ...BASE,
        NODE_ENV: 'production',
        AGENT_KEY_ENCRYPTION_KEYS: `${RING},test1:${Buffer.alloc(32, 7).toString('base64')}`,
      }),
    ).toMatch(/AGENT_KEY_ENCRYPTION_KEYS: holds a development key version/);
  });

  it('the same values start in development; production with its own values starts; private webhook targets refused unless set', () => {
    const dev = loadConfig({
      ...BASE,
      JWT_SECRET: 'dev:0123456789abcdef0123456789abcdef',
      AGENT_KEY_ENCRYPTION_KEYS: `dev1:${Buffer.alloc(32, 3).toString('base64')}`,
    });
    expect(dev.nodeEnv).toBe('development');
    expect(dev.webhooks.allowPrivate).toBe(false);
    expect(loadConfig({ ...BASE, WEBHOOK_ALLOW_PRIVATE: 'true' }).webhooks.allowPrivate).toBe(true);
    const prod = loadConfig({ ...BASE, NODE_ENV: 'production', AGENT_KEY_ENCRYPTION_KEYS: RING });
    expect(prod.nodeEnv).toBe('production');
    expect(prod.webhooks.allowPrivate).toBe(false);
    expect(prod.faultCrash).toBeNull();
    expect(refusal({ ...BASE, NODE_ENV: 'staging' })).toMatch(/NODE_ENV: /);
    expect(refusal({ ...BASE, FAULT_CRASH: 'sometimes' })).toMatch(
      /FAULT_CRASH: FAULT_CRASH is <before\|after>:<activityName>:<n>/,
    );
  });
});

describe('Temporal connection settings', () => {
  it('refuses a client certificate without its key and a key without its certificate', () => {
    expect(refusal({ ...BASE, TEMPORAL_TLS_CERT: pem.cert })).toMatch(
      /TEMPORAL_TLS_KEY: unset while TEMPORAL_TLS_CERT is set/,
    );
    expect(refusal({ ...BASE, TEMPORAL_TLS_KEY: pem.key })).toMatch(
      /TEMPORAL_TLS_CERT: unset while TEMPORAL_TLS_KEY is set/,
    );
  });

  it('refuses TEMPORAL_TLS=off together with TLS files or an API key', () => {
    expect(refusal({ ...BASE, TEMPORAL_TLS: 'off', TEMPORAL_TLS_CA: pem.ca })).toMatch(
      /TEMPORAL_TLS: off, but TEMPORAL_TLS_CERT\/TEMPORAL_TLS_KEY\/TEMPORAL_TLS_CA\/TEMPORAL_TLS_SERVER_NAME would then be ignored/,
    );
    expect(refusal({ ...BASE, TEMPORAL_TLS: 'off', TEMPORAL_API_KEY: 'tcak_123' })).toMatch(
      /TEMPORAL_TLS: off, but TEMPORAL_API_KEY is set/,
    );
  });

  it('refuses unreadable or non-PEM files, naming the variable and the file', () => {
    const missing = path.join(dir, 'missing.pem');
    expect(refusal({ ...BASE, TEMPORAL_TLS_CERT: missing, TEMPORAL_TLS_KEY: pem.key })).toBe(
      `invalid configuration:\n  TEMPORAL_TLS_CERT: cannot read ${missing} (ENOENT)`,
    );
    expect(refusal({ ...BASE, TEMPORAL_TLS_CA: pem.notPem })).toBe(
      `invalid configuration:\n  TEMPORAL_TLS_CA: ${pem.notPem} holds no PEM block (-----BEGIN ...)`,
    );
  });

  it('mTLS: the builder hands both SDKs the certificate pair, the CA and the server name', () => {
    const t = loadConfig({
      ...BASE,
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_TLS_CERT: pem.cert,
      TEMPORAL_TLS_KEY: pem.key,
      TEMPORAL_TLS_CA: pem.ca,
      TEMPORAL_TLS_SERVER_NAME: 'frontend.temporal',
    }).temporal;
    const o = temporalConnectionOptions(t);
    expect(o.address).toBe('temporal.internal:7233');
    expect(o.tls && Buffer.from(o.tls.clientCertPair!.crt).toString()).toBe(readFileSync(pem.cert, 'utf8'));
    expect(o.tls && Buffer.from(o.tls.clientCertPair!.key).toString()).toBe(readFileSync(pem.key, 'utf8'));
    expect(o.tls && Buffer.from(o.tls.serverRootCACertificate!).toString()).toBe(readFileSync(pem.ca, 'utf8'));
    expect(o.tls && o.tls.serverNameOverride).toBe('frontend.temporal');
    expect(o.apiKey).toBeUndefined();
  });

  it('Temporal Cloud: an API key alone turns TLS on with the system roots; with a client certificate it is allowed too', () => {
    const cloud = temporalConnectionOptions(
      loadConfig({ ...BASE, TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', TEMPORAL_API_KEY: 'tcak_secret' }).temporal,
    );
    expect(cloud).toEqual({ address: 'ns.acct.tmprl.cloud:7233', tls: {}, apiKey: 'tcak_secret' });
    const both = loadConfig({
      ...BASE,
      TEMPORAL_API_KEY: 'tcak_secret',
      TEMPORAL_TLS_CERT: pem.cert,
      TEMPORAL_TLS_KEY: pem.key,
    }).temporal;
    expect(both.tls?.clientCert).toEqual({ certFile: pem.cert, keyFile: pem.key });
    expect(both.apiKey).toBe('tcak_secret');
  });

  it('a bare address (the dev server, the test stacks) is plaintext; a CA alone or TEMPORAL_TLS=on is server-authenticated TLS', () => {
    expect(temporalConnectionOptions(loadConfig(BASE).temporal)).toEqual({ address: '127.0.0.1:7233', tls: false });
    expect(temporalConnectionOptions({ address: '127.0.0.1:7233' })).toEqual({ address: '127.0.0.1:7233', tls: false });
    expect(loadConfig({ ...BASE, TEMPORAL_TLS_CA: pem.ca }).temporal.tls).toEqual({
      clientCert: null,
      caFile: pem.ca,
      serverName: null,
    });
    expect(loadConfig({ ...BASE, TEMPORAL_TLS: 'on' }).temporal.tls).toEqual({
      clientCert: null,
      caFile: null,
      serverName: null,
    });
    expect(loadTemporalConfig({ TEMPORAL_ADDRESS: 'x:1', TEMPORAL_TLS_CA: pem.ca }).tls?.caFile).toBe(pem.ca);
  });

  it('a PEM file removed after start is reported by the builder with its variable and path', () => {
    const gone = path.join(dir, 'gone.pem');
    writeFileSync(gone, readFileSync(pem.ca));
    const t = loadConfig({ ...BASE, TEMPORAL_TLS_CA: gone }).temporal;
    rmSync(gone);
    expect(() => temporalConnectionOptions(t)).toThrow(`TEMPORAL_TLS_CA: cannot read ${gone} (ENOENT)`);
  });
});

describe('--print-config', () => {
  const SECRET_ENV = {
    ...BASE,
    PROP_DEPLOYER_KEY: `0x${'ab'.repeat(32)}`,
    AGENT_KEY_ENCRYPTION_KEYS: RING,
    SMTP_URL: 'smtps://mailer:smtp-password-9@smtp.example.com:465',
    TEMPORAL_API_KEY: 'tcak_cloud_key_value',
    TEMPORAL_TLS_CERT: '',
  };

  it('redactedConfig lists every variable after defaults, secrets redacted and the rest as configured', () => {
    const shown = redactedConfig(SECRET_ENV);
    expect(shown).toMatchObject({
      NODE_ENV: 'development',
      DATABASE_URL: 'postgres://platform:<redacted>@db.internal:5432/platform',
      JWT_SECRET: '<redacted>',
      PROP_DEPLOYER_KEY: '<redacted>',
      AGENT_KEY_ENCRYPTION_KEYS: 'prod1:<redacted>,old2:<redacted>',
      SMTP_URL: 'smtps://mailer:<redacted>@smtp.example.com:465',
      TEMPORAL_API_KEY: '<redacted>',
      TEMPORAL_TLS: 'on',
      TEMPORAL_TLS_CERT: null,
      TEMPORAL_ADDRESS: '127.0.0.1:7233',
      PORT: 3000,
      WEBHOOK_ALLOW_PRIVATE: 'false',
      CHAIN_RPC_URL: null,
    });
    const text = JSON.stringify(shown);
    for (const secret of [
      'db-password-1',
      BASE.JWT_SECRET,
      'ab'.repeat(32),
      Buffer.alloc(32, 1).toString('base64'),
      'smtp-password-9',
      'tcak_cloud_key_value',
    ])
      expect(text).not.toContain(secret);
  });

  /**
   * Runs an entry point with `--print-config` in a child process (the real `node --import tsx` start). The entry point
   * loads its whole import graph through tsx before it reads its arguments: beside the suite's other files on a slow
   * machine that took over 30 s once (CI of 2026-11-29, killed by the old timeout: status null), so it gets two minutes.
   */
  const run = (script: string, env: Record<string, string>) =>
    spawnSync(process.execPath, ['--import', 'tsx', script, '--print-config'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...env },
      encoding: 'utf8',
      timeout: CHILD_TIMEOUT_MS,
    });

  it(
    'the api prints the redacted configuration as JSON and exits 0 without starting',
    { timeout: TEST_TIMEOUT_MS },
    () => {
      const r = run('api/server.ts', { ...SECRET_ENV, PORT: '1' });
      expect(r.status, r.stderr).toBe(0);
      const shown = JSON.parse(r.stdout);
      expect(shown).toMatchObject({ PORT: 1, JWT_SECRET: '<redacted>', TEMPORAL_API_KEY: '<redacted>' });
      expect(r.stdout).not.toContain('smtp-password-9');
    },
  );

  it('the worker prints the validation errors and exits 1', { timeout: TEST_TIMEOUT_MS }, () => {
    const r = run('worker/main.ts', { DATABASE_URL: 'not a url', JWT_SECRET: 'short', NODE_ENV: 'production' });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^invalid configuration:\n {2}DATABASE_URL: .*\n {2}JWT_SECRET: JWT_SECRET must be at least 32 characters\n$/,
    );
  });
});
