/**
 * The platform against a real Temporal server with mutual TLS on its frontend (README "Connecting to
 * a Temporal cluster"): the full server binary v1.32.2 (scripts/lib/temporal-server.ts, SQLite in
 * memory, `requireClientAuth`), certificates made with openssl for this run. The api and the
 * worker, configured only through TEMPORAL_TLS_CERT/KEY/CA/SERVER_NAME (config.ts →
 * temporal-connection.ts), fill a paper market order end to end; connections without a client
 * certificate, with a certificate of an unknown CA, trusting another CA, or in plaintext are refused.
 * Independent of the run's shared dev server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect as connectTls } from 'node:tls';
import { NativeConnection } from '@temporalio/worker';
import { startTemporalServer, type TemporalServer } from '../../scripts/lib/temporal-server.js';
import { temporalConnectionOptions, type TemporalTarget } from '../../temporal-connection.js';
import { loadConfig } from '../../config.js';
import { SA } from '../../workflows/shared.definitions.js';
import { intentWorkflowId } from '../../modules/oms/workflows/intent.definitions.js';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';
import { waitFor } from '../support/wait.js';
import { makeCertificates, type TestCertificates } from './certs.js';

describe('Temporal over mutual TLS (a real server 1.32.2, client certificates required)', () => {
  let dir: string;
  let certs: TestCertificates;
  let server: TemporalServer;
  let stack: Stack | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'temporal-mtls-'));
    certs = makeCertificates(dir);
    server = await startTemporalServer({
      tls: {
        certFile: certs.serverCertFile,
        keyFile: certs.serverKeyFile,
        caFile: certs.caFile,
        clientCertFile: certs.clientCertFile,
        clientKeyFile: certs.clientKeyFile,
      },
      searchAttributes: Object.fromEntries(Object.values(SA).map((k) => [k.name, 'KEYWORD' as const])),
      dynamicConfig: { 'system.forceSearchAttributesCacheRefreshOnRead': true },
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A target built the way the processes build theirs: loadConfig over TEMPORAL_* variables. */
  const configured = (env: Record<string, string>): TemporalTarget =>
    loadConfig({
      DATABASE_URL: 'postgres://unused@127.0.0.1/x',
      JWT_SECRET: 'x'.repeat(32),
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_TLS_SERVER_NAME: 'localhost',
      ...env,
    }).temporal;

  it("the platform's api and worker, given TEMPORAL_TLS_CERT/KEY/CA/SERVER_NAME, fill a paper market order", async () => {
    stack = await startStack({
      temporalAddress: server.address,
      env: {
        TEMPORAL_TLS_CERT: certs.clientCertFile,
        TEMPORAL_TLS_KEY: certs.clientKeyFile,
        TEMPORAL_TLS_CA: certs.caFile,
        TEMPORAL_TLS_SERVER_NAME: 'localhost',
      },
    });
    expect(stack.config.temporal.tls).toEqual({
      clientCert: { certFile: certs.clientCertFile, keyFile: certs.clientKeyFile },
      caFile: certs.caFile,
      serverName: 'localhost',
    });
    await publish(stack.orm, await recordedTick('BTC.PAPER', 0));
    const t = await stack.trader();
    const res = await stack.call('POST', '/api/v1/oms/intents', {
      token: t.token,
      body: { venue: 'paper', symbol: 'BTC.PAPER', side: 'buy', type: 'market', qty: '0.01', clientOrderId: 'mtls-1' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const got = await waitFor(
      () => stack!.call('GET', `/api/v1/oms/intents/${res.body.intentId}`, { token: t.token }),
      (r) => r.body.state === 'filled',
    );
    expect(got.body.orderStatus).toBe('filled');
    // The intent workflow ran on the TLS server (the stack's client reaches only that one).
    expect(await stack.temporal.workflow.getHandle(intentWorkflowId(res.body.intentId)).result()).toEqual({
      intentId: res.body.intentId,
      state: 'filled',
    });
  });

  /**
   * The TLS alert the server answers a handshake with `target`'s TLS material (Node's TLS with the
   * same bytes the builder read), or `accepted` when it serves HTTP/2. The SDK's own errors do not
   * always say why: under TLS 1.3 the client may finish its side of the handshake before the
   * server's alert, and then sees only a closed connection.
   */
  const serverVerdict = (target: TemporalTarget) =>
    new Promise<string>((resolve) => {
      const { tls: t } = temporalConnectionOptions(target);
      if (!t) throw new Error('a TLS target is expected');
      const [host, port] = server.address.split(':');
      const socket = connectTls({
        host,
        port: Number(port),
        servername: t.serverNameOverride,
        ca: t.serverRootCACertificate && Buffer.from(t.serverRootCACertificate),
        cert: t.clientCertPair && Buffer.from(t.clientCertPair.crt),
        key: t.clientCertPair && Buffer.from(t.clientCertPair.key),
        ALPNProtocols: ['h2'],
      });
      socket.on('secureConnect', () => socket.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'));
      socket.on('data', () => (resolve('accepted'), socket.destroy()));
      socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      socket.on('close', () => resolve('closed'));
    });

  it('a client without a certificate is refused by the server (TLS alert: certificate required)', async () => {
    const target = configured({ TEMPORAL_TLS_CA: certs.caFile });
    expect(target.tls?.clientCert).toBeNull();
    await expect(NativeConnection.connect(temporalConnectionOptions(target))).rejects.toThrow(
      /tonic::transport::Error/,
    );
    expect(await serverVerdict(target)).toBe('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED');
    // The same material with the client certificate is accepted.
    expect(
      await serverVerdict(
        configured({
          TEMPORAL_TLS_CERT: certs.clientCertFile,
          TEMPORAL_TLS_KEY: certs.clientKeyFile,
          TEMPORAL_TLS_CA: certs.caFile,
        }),
      ),
    ).toBe('accepted');
  });

  it('a client certificate signed by an unknown CA is refused by the server (TLS alert: unknown CA)', async () => {
    const target = configured({
      TEMPORAL_TLS_CERT: certs.otherClientCertFile,
      TEMPORAL_TLS_KEY: certs.otherClientKeyFile,
      TEMPORAL_TLS_CA: certs.caFile,
    });
    await expect(NativeConnection.connect(temporalConnectionOptions(target))).rejects.toThrow(
      /tonic::transport::Error/,
    );
    expect(await serverVerdict(target)).toBe('ERR_SSL_TLSV1_ALERT_UNKNOWN_CA');
  });

  it("a client trusting another CA refuses the server's certificate (unknown issuer)", async () => {
    const target = configured({
      TEMPORAL_TLS_CERT: certs.clientCertFile,
      TEMPORAL_TLS_KEY: certs.clientKeyFile,
      TEMPORAL_TLS_CA: certs.otherCaFile,
    });
    await expect(NativeConnection.connect(temporalConnectionOptions(target))).rejects.toThrow(/UnknownIssuer/);
  });

  it('a plaintext client (TEMPORAL_TLS=off) gets no answer from the TLS frontend', async () => {
    const target = configured({ TEMPORAL_TLS: 'off', TEMPORAL_TLS_SERVER_NAME: '' });
    expect(target.tls).toBeNull();
    await expect(NativeConnection.connect(temporalConnectionOptions(target))).rejects.toThrow(
      /tonic::transport::Error/,
    );
  });
});
