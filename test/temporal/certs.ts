/**
 * Throwaway TLS material for the Temporal mTLS tests, made with the `openssl` CLI (OpenSSL 3,
 * P-256 keys, valid one day): a CA, the frontend's certificate (SAN `localhost`, `127.0.0.1`) and a
 * client certificate signed by it, plus a second, unrelated CA with a client certificate of its
 * own (the "wrong CA" cases).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** PEM file paths written by {@link makeCertificates}. */
export interface TestCertificates {
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  /** A CA the server does not know, and a client certificate signed by it. */
  otherCaFile: string;
  otherClientCertFile: string;
  otherClientKeyFile: string;
}

const openssl = (args: string[], cwd: string) =>
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A self-signed CA `<name>.pem` / `<name>.key` (OpenSSL 3 adds `CA:TRUE`). */
function ca(dir: string, name: string): void {
  openssl(
    ['req', '-x509', ...newKey, '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '1', '-subj', `/CN=${name}`],
    dir,
  );
}

/** A certificate `<name>.pem` / `<name>.key` for `cn` signed by CA `<caName>`, with the given v3 extensions. */
function leaf(dir: string, name: string, cn: string, caName: string, extensions: string): void {
  writeFileSync(path.join(dir, `${name}.ext`), extensions);
  openssl(['req', ...newKey, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`], dir);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${caName}.pem`,
      '-CAkey',
      `${caName}.key`,
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '1',
      '-extfile',
      `${name}.ext`,
    ],
    dir,
  );
}

/**
 * Writes the certificates into `dir` (which must exist).
 * @throws Error from `openssl` (its stderr) when the CLI is missing or fails.
 */
export function makeCertificates(dir: string): TestCertificates {
  ca(dir, 'ca');
  leaf(dir, 'server', 'localhost', 'ca', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  leaf(dir, 'client', 'platform-worker', 'ca', 'extendedKeyUsage=clientAuth\n');
  ca(dir, 'other-ca');
  leaf(dir, 'other-client', 'intruder', 'other-ca', 'extendedKeyUsage=clientAuth\n');
  const f = (name: string) => path.join(dir, name);
  return {
    caFile: f('ca.pem'),
    serverCertFile: f('server.pem'),
    serverKeyFile: f('server.key'),
    clientCertFile: f('client.pem'),
    clientKeyFile: f('client.key'),
    otherCaFile: f('other-ca.pem'),
    otherClientCertFile: f('other-client.pem'),
    otherClientKeyFile: f('other-client.key'),
  };
}
