/**
 * A real, full Temporal server with TLS on its frontend, for proving the platform's TLS and mTLS
 * connection (test/temporal/mtls.test.ts; README "Connecting to a Temporal cluster"). The CLI's dev
 * server has no TLS flags, so this runs the server binary of go.temporal.io/server v1.32.2 (built by
 * `bash scripts/setup.sh` into `~/.cache/temporal-server/v1.32.2/server`) as one process with all
 * four services, SQLite persistence in memory, and a config file written into a temporary directory:
 * the frontend requires client certificates (`requireClientAuth`), internode traffic (history,
 * matching) stays plaintext on 127.0.0.1, and the server's system worker reaches the frontend
 * with the client certificate it is given.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs, type Duration } from '@temporalio/common/lib/time.js';
import proto from '@temporalio/proto';
import { stringify } from 'yaml';
import { temporalConnectionOptions, type TemporalTarget } from '../../temporal-connection.js';
import { executableFromEnv, freePort, isExecutableFile } from './temporal-dev.js';
import { watchChild, type WatchedChild } from './children.js';

/** The pinned Temporal server version (see scripts/setup.sh). */
export const TEMPORAL_SERVER_VERSION = 'v1.32.2';

/** Where scripts/setup.sh builds the server: outside the checkout, keyed by version. */
export const TEMPORAL_SERVER_CACHE = path.join(homedir(), '.cache/temporal-server', TEMPORAL_SERVER_VERSION, 'server');

/**
 * The Temporal server binary: `$TEMPORAL_SERVER_BIN`, else `~/.cache/temporal-server/v1.32.2/server`.
 * @throws Error when `$TEMPORAL_SERVER_BIN` is set but not an executable file, or when the cached
 *   build is missing (the message says to run `bash scripts/setup.sh`).
 */
export function resolveTemporalServerBinary(): string {
  const fromEnv = executableFromEnv('TEMPORAL_SERVER_BIN', `build the Temporal server ${TEMPORAL_SERVER_VERSION}`);
  if (fromEnv) return fromEnv;
  if (isExecutableFile(TEMPORAL_SERVER_CACHE)) return TEMPORAL_SERVER_CACHE;
  throw new Error(
    `Temporal server binary not found at ${TEMPORAL_SERVER_CACHE}. Run \`bash scripts/setup.sh\` (it builds go.temporal.io/server/cmd/server@${TEMPORAL_SERVER_VERSION} with Go), or set TEMPORAL_SERVER_BIN.`,
  );
}

/** The TLS material of the server (PEM file paths). */
export interface TemporalServerTls {
  /** The frontend's certificate and key; the certificate must name `serverName`. */
  certFile: string;
  keyFile: string;
  /** The CA that signs client certificates, and the frontend's certificate for the system worker. */
  caFile: string;
  /** A client certificate signed by `caFile`, used by the server's system worker and by the readiness check. */
  clientCertFile: string;
  clientKeyFile: string;
  /** The name the frontend's certificate holds (default `localhost`). */
  serverName?: string;
}

/** A Temporal search attribute type, as the operator API names it. */
export type SearchAttributeTypeName = 'KEYWORD' | 'TEXT' | 'INT' | 'DOUBLE' | 'BOOL' | 'DATETIME' | 'KEYWORD_LIST';

/** Options of {@link startTemporalServer}. */
export interface StartTemporalServerOptions {
  tls: TemporalServerTls;
  /** Default {@link resolveTemporalServerBinary}(). */
  binary?: string;
  /** Namespace registered once the server answers (default `default`; 1-day retention). */
  namespace?: string;
  /** Custom search attributes to register on the namespace, name → type (e.g. `{ TenantId: 'KEYWORD' }`). */
  searchAttributes?: Record<string, SearchAttributeTypeName>;
  /** Dynamic config values, key → value (e.g. `{ 'system.forceSearchAttributesCacheRefreshOnRead': true }`). */
  dynamicConfig?: Record<string, unknown>;
  /** Receives every line the server prints. */
  log?: (line: string) => void;
  /** How long to wait for the TLS frontend to answer; default 60 s. */
  readyTimeoutMs?: number;
}

/** A running server, from {@link startTemporalServer}. */
export interface TemporalServer {
  /** Frontend gRPC address, `127.0.0.1:<port>` (clients set the server name, the address is an IP). */
  address: string;
  namespace: string;
  /** How a client with the server's client certificate reaches it (for temporalConnectionOptions). */
  target: TemporalTarget;
  /** SIGTERM, then SIGKILL after 10 s; removes the temporary directory. Idempotent. */
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Writes the server's config (and dynamic config) into a new temporary directory, starts the
 * server on free ports of 127.0.0.1, waits until the TLS frontend answers `GetSystemInfo` to a
 * client with `tls.clientCertFile`, registers the namespace and the search attributes, and waits
 * until they are visible. The server dies with this process unless stopped earlier.
 * @throws Error when the binary is missing, the server exits, or it does not answer within the
 *   timeout; the message holds its last output lines.
 */
export async function startTemporalServer(opts: StartTemporalServerOptions): Promise<TemporalServer> {
  const binary = opts.binary ?? resolveTemporalServerBinary();
  const namespace = opts.namespace ?? 'default';
  const serverName = opts.tls.serverName ?? 'localhost';
  const readyTimeoutMs = opts.readyTimeoutMs ?? 60_000;
  const dir = mkdtempSync(path.join(tmpdir(), 'temporal-server-'));
  const ports: number[] = [];
  for (let i = 0; i < 9; i++) ports.push(await freePort());
  const [frontend, history, matching, worker, mFrontend, mHistory, mMatching, mWorker, http] = ports;
  const address = `127.0.0.1:${frontend}`;
  const sqlite = (name: string) => ({
    sql: {
      pluginName: 'sqlite',
      databaseName: name,
      connectAddr: 'localhost',
      connectProtocol: 'tcp',
      connectAttributes: { mode: 'memory', cache: 'private' },
      maxConns: 1,
      maxIdleConns: 1,
      maxConnLifetime: '1h',
    },
  });
  const clientTls = { serverName, rootCaFiles: [opts.tls.caFile] };
  const config = {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'sqlite-default',
      visibilityStore: 'sqlite-visibility',
      numHistoryShards: 1,
      datastores: { 'sqlite-default': sqlite('default'), 'sqlite-visibility': sqlite('default') },
    },
    global: {
      membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' },
      tls: {
        // No `internode` section: history and matching talk plaintext on 127.0.0.1.
        frontend: {
          server: {
            certFile: opts.tls.certFile,
            keyFile: opts.tls.keyFile,
            requireClientAuth: true,
            clientCaFiles: [opts.tls.caFile],
          },
          client: clientTls,
        },
        systemWorker: { certFile: opts.tls.clientCertFile, keyFile: opts.tls.clientKeyFile, client: clientTls },
      },
    },
    services: {
      frontend: { rpc: { grpcPort: frontend, membershipPort: mFrontend, bindOnIP: '127.0.0.1', httpPort: http } },
      history: { rpc: { grpcPort: history, membershipPort: mHistory, bindOnIP: '127.0.0.1' } },
      matching: { rpc: { grpcPort: matching, membershipPort: mMatching, bindOnIP: '127.0.0.1' } },
      worker: { rpc: { grpcPort: worker, membershipPort: mWorker, bindOnIP: '127.0.0.1' } },
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: `${serverName}:${frontend}`,
          httpAddress: `${serverName}:${http}`,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    ...(opts.dynamicConfig && {
      dynamicConfigClient: { filepath: path.join(dir, 'dynamic.yaml'), pollInterval: '10s' },
    }),
  };
  if (opts.dynamicConfig) {
    writeFileSync(
      path.join(dir, 'dynamic.yaml'),
      stringify(Object.fromEntries(Object.entries(opts.dynamicConfig).map(([k, value]) => [k, [{ value }]]))),
    );
  }
  const configFile = path.join(dir, 'config.yaml');
  writeFileSync(configFile, stringify(config));

  // --allow-no-auth: no authorizer is configured; the frontend's mTLS is the authentication.
  const child = spawn(binary, ['--config-file', configFile, '--allow-no-auth', 'start'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const server = watchChild(child, binary, { log: opts.log, reapSignal: 'SIGKILL' });
  const stop = async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };

  const target: TemporalTarget = {
    address,
    tls: {
      clientCert: { certFile: opts.tls.clientCertFile, keyFile: opts.tls.clientKeyFile },
      caFile: opts.tls.caFile,
      serverName,
    },
    apiKey: null,
  };
  try {
    await prepareNamespace({
      target,
      namespace,
      searchAttributes: opts.searchAttributes,
      deadline: Date.now() + readyTimeoutMs,
      server: { binary, ...server },
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { address, namespace, target, stop };
}

/**
 * Waits until a freshly started Temporal server (the process `server` watches) answers `target`,
 * registers `namespace` (already registered is fine) with `retention` (default 1 day), adds the
 * custom `searchAttributes` (name → type) to it, and waits until they are listed. Calls that fail
 * while the services are still joining ("Not enough hosts") are retried until `deadline` (epoch ms).
 * @throws Error when the server process exits, or does not answer or accept a call by `deadline`;
 *   the message holds its last output lines.
 */
export async function prepareNamespace(opts: {
  target: TemporalTarget;
  namespace: string;
  retention?: Duration;
  searchAttributes?: Record<string, SearchAttributeTypeName>;
  deadline: number;
  server: Pick<WatchedChild, 'exitInfo' | 'lastLines'> & { binary: string };
}): Promise<void> {
  const { target, namespace, deadline } = opts;
  const { binary, exitInfo, lastLines } = opts.server;
  const { address } = target;
  const { IndexedValueType } = proto.temporal.api.enums.v1;
  let connected: Connection | undefined;
  while (!connected) {
    if (exitInfo() !== undefined) throw new Error(`Temporal server (${binary}) ${exitInfo()}${lastLines()}`);
    connected = await Connection.connect({ ...temporalConnectionOptions(target), connectTimeout: 1_000 }).catch(
      () => undefined,
    );
    if (!connected && Date.now() > deadline)
      throw new Error(
        `Temporal server did not answer${target.tls ? ' over TLS' : ''} on ${address} in time${lastLines()}`,
      );
  }
  const conn = connected;
  try {
    // Until every service has joined, calls fail with "Not enough hosts"; retry them to the deadline.
    const retry = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
      for (;;) {
        try {
          return await call();
        } catch (err) {
          if (exitInfo() !== undefined || Date.now() > deadline)
            throw new Error(`Temporal server on ${address}: ${what} failed: ${(err as Error).message}${lastLines()}`, {
              cause: err,
            });
          await sleep(200);
        }
      }
    };
    await retry('GetSystemInfo', () => conn.workflowService.getSystemInfo({}));
    await retry(`registering namespace ${namespace}`, () =>
      conn.workflowService
        .registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(opts.retention ?? '1 day') })
        .catch((err: Error) => {
          if (!/already exists|AlreadyExists/i.test(err.message)) throw err;
        }),
    );
    await retry(`describing namespace ${namespace}`, () => conn.workflowService.describeNamespace({ namespace }));
    const wanted = Object.entries(opts.searchAttributes ?? {});
    if (wanted.length) {
      const listed = async () =>
        (await conn.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};
      const missing = async () => {
        const have = await listed();
        return wanted.filter(([name]) => !(name in have));
      };
      // Only the missing ones: adding an attribute that exists fails (a cluster started again).
      const toAdd = await retry('listing search attributes', missing);
      if (toAdd.length) {
        const searchAttributes = Object.fromEntries(
          toAdd.map(([name, type]) => [name, IndexedValueType[`INDEXED_VALUE_TYPE_${type}`]]),
        );
        await retry('adding search attributes', () =>
          conn.operatorService.addSearchAttributes({ namespace, searchAttributes }).catch((err: Error) => {
            if (!/already exists|AlreadyExists/i.test(err.message)) throw err; // an earlier try that timed out did it
          }),
        );
      }
      await retry('listing search attributes', async () => {
        const left = await missing();
        if (left.length) throw new Error(`not yet visible: ${left.map(([name]) => name).join(', ')}`);
      });
    }
  } finally {
    await conn.close();
  }
}
