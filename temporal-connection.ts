/**
 * The options of every connection to the Temporal frontend (README "Connecting to a Temporal
 * cluster"): one builder for both `Connection.connect` (@temporalio/client: the api, the worker's
 * client, scripts) and `NativeConnection.connect` (@temporalio/worker: the worker), from
 * {@link TemporalConfig} (TEMPORAL_ADDRESS, TEMPORAL_TLS*, TEMPORAL_API_KEY in config.ts).
 * Imports only types from the SDKs, so the api does not load the worker's native module.
 */
import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import type { TemporalConfig } from './config.js';

/** What the builder needs: an address, and optionally TLS and an API key (a bare address = plaintext, as the dev server and test stacks use). */
export type TemporalTarget = Pick<TemporalConfig, 'address'> & Partial<Pick<TemporalConfig, 'tls' | 'apiKey'>>;

/** Options accepted by both `Connection.connect` and `NativeConnection.connect`. */
export interface TemporalConnectionOptions {
  address: string;
  /** The TLS settings, or false for plaintext. */
  tls: TLSConfig | false;
  /** Sent as `Authorization: Bearer <apiKey>` (Temporal Cloud). */
  apiKey?: string;
}

function readPem(variable: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new Error(`${variable}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`, {
      cause: err,
    });
  }
}

/**
 * The connection options for `target`: PEM files read now (`clientCertPair` from the client
 * certificate and key, `serverRootCACertificate` from the CA, `serverNameOverride` from the server
 * name); `tls: false` when TLS is off; `apiKey` when set (the SDKs then send it on every call).
 * Spread it and add call-site options: `Connection.connect({ ...temporalConnectionOptions(c), connectTimeout })`.
 * @throws Error `TEMPORAL_TLS_CERT: cannot read <file> (<code>)` (or _KEY, _CA) when a file went missing since the configuration was loaded.
 */
export function temporalConnectionOptions(target: TemporalTarget): TemporalConnectionOptions {
  const { tls } = target;
  const options: TemporalConnectionOptions = {
    address: target.address,
    tls: tls
      ? {
          ...(tls.clientCert && {
            clientCertPair: {
              crt: readPem('TEMPORAL_TLS_CERT', tls.clientCert.certFile),
              key: readPem('TEMPORAL_TLS_KEY', tls.clientCert.keyFile),
            },
          }),
          ...(tls.caFile && { serverRootCACertificate: readPem('TEMPORAL_TLS_CA', tls.caFile) }),
          ...(tls.serverName && { serverNameOverride: tls.serverName }),
        }
      : false,
  };
  if (target.apiKey) options.apiKey = target.apiKey;
  return options;
}
