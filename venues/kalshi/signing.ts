/**
 * Kalshi Trade API v2 request signing (docs/venues.md §4.1). No I/O; the only state is the parsed private keys
 * ({@link privateKeyObject}).
 *
 * Every private request carries three headers:
 * - `KALSHI-ACCESS-KEY`: the API key id Kalshi assigned when the public key was registered (a UUID);
 * - `KALSHI-ACCESS-TIMESTAMP`: the request time, epoch milliseconds, decimal;
 * - `KALSHI-ACCESS-SIGNATURE`: base64 of RSA-PSS(SHA-256, MGF1-SHA-256, salt length = digest
 *   length, 32 bytes) over the UTF-8 message `timestamp + METHOD + path`, where `path` is the URL
 *   path INCLUDING `/trade-api/v2` and EXCLUDING the query string; the body is not signed.
 *   Example from Kalshi's quick start: `1703123456789GET/trade-api/v2/portfolio/balance`, and
 *   `/portfolio/orders?limit=5` signs `/trade-api/v2/portfolio/orders`.
 *
 * PSS is randomized (a fresh salt per signature), so there is no fixed signature vector: tests
 * sign then verify. The venue side ({@link verifyKalshiSignature}) accepts any salt length
 * (`RSA_PSS_SALTLEN_AUTO`), as a verifier does.
 */
import {
  constants,
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';

/** Header names, as Kalshi spells them. */
export const KALSHI_HEADERS = {
  key: 'KALSHI-ACCESS-KEY',
  timestamp: 'KALSHI-ACCESS-TIMESTAMP',
  signature: 'KALSHI-ACCESS-SIGNATURE',
} as const;

/** The path prefix every Trade API v2 REST path has (part of the signed path). */
export const TRADE_API_PREFIX = '/trade-api/v2';

/**
 * The path to sign for a request URL: its URL path (percent-encoding as sent), without query or
 * fragment. `https://host/trade-api/v2/portfolio/orders?limit=5` → `/trade-api/v2/portfolio/orders`.
 * A bare path (`/trade-api/v2/x?y=1`) is accepted too.
 */
export function signedPath(url: string): string {
  return new URL(url, 'http://placeholder.invalid').pathname;
}

/**
 * The exact message Kalshi verifies: `timestamp + METHOD + path` (method upper-cased, path without
 * query). `timestampMs` is epoch ms (decimal string or integer).
 */
export function signingMessage(timestampMs: string | number | bigint, method: string, path: string): string {
  return `${String(timestampMs)}${method.toUpperCase()}${signedPath(path)}`;
}

/** How many agents' private keys {@link privateKeyObject} keeps parsed (the least recently used goes first). */
const PARSED_KEYS_MAX = 1_024;
const parsedKeys = new Map<string, KeyObject>();

/**
 * The KeyObject of a private key PEM, parsed once per key (issue 15): OpenSSL keeps a key's RSA precomputation on its
 * KeyObject, so a signature with a key parsed for it takes 0.57 ms on this project's 2-vCPU bench machine and one with
 * a kept KeyObject 0.26 ms (`node:crypto`, 2048-bit keys; every Kalshi request is signed). Kept under the SHA-256 of
 * the PEM, so the map holds no key text; bounded by {@link PARSED_KEYS_MAX}.
 * @throws Error when the PEM is not a private key.
 */
function privateKeyObject(pem: string): KeyObject {
  const id = createHash('sha256').update(pem).digest('base64');
  const key = parsedKeys.get(id) ?? createPrivateKey(pem);
  parsedKeys.delete(id); // (re)inserted last: the map runs from the least to the most recently used
  parsedKeys.set(id, key);
  if (parsedKeys.size > PARSED_KEYS_MAX) parsedKeys.delete(parsedKeys.keys().next().value!);
  return key;
}

/**
 * Base64 RSA-PSS-SHA256 signature (MGF1-SHA256, salt = 32 bytes) of `message` with the PKCS#8 (or
 * PKCS#1) PEM private key. Randomized: two calls give two different valid signatures.
 * @throws Error when the PEM is not an RSA private key.
 */
export function signPss(privateKeyPem: string | KeyObject, message: string): string {
  const key = typeof privateKeyPem === 'string' ? privateKeyObject(privateKeyPem) : privateKeyPem;
  return sign('sha256', Buffer.from(message, 'utf8'), {
    key,
    padding: constants.RSA_PKCS1_PSS_PADDING,
    saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
  }).toString('base64');
}

/**
 * The three auth headers of one request: `method` and the full request `url` (query allowed: it is
 * stripped from the signed path), `timestampMs` epoch ms (default now).
 */
export function kalshiAuthHeaders(
  keyId: string,
  privateKeyPem: string | KeyObject,
  method: string,
  url: string,
  timestampMs: number | bigint = Date.now(),
): Record<string, string> {
  const ts = String(timestampMs);
  return {
    [KALSHI_HEADERS.key]: keyId,
    [KALSHI_HEADERS.timestamp]: ts,
    [KALSHI_HEADERS.signature]: signPss(privateKeyPem, signingMessage(ts, method, url)),
  };
}

/**
 * The venue's check: true iff `signatureB64` is a valid RSA-PSS-SHA256 (MGF1-SHA256, any salt
 * length) signature of `message` under the SPKI/PKCS#1 PEM (or KeyObject) public key. Never throws
 * on a malformed signature (false).
 */
export function verifyKalshiSignature(publicKey: string | KeyObject, message: string, signatureB64: string): boolean {
  try {
    const sig = Buffer.from(signatureB64, 'base64');
    if (sig.length === 0 || sig.toString('base64') !== signatureB64) return false;
    const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
    return verify(
      'sha256',
      Buffer.from(message, 'utf8'),
      { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO },
      sig,
    );
  } catch {
    return false;
  }
}

/**
 * A fresh Kalshi agent key: RSA 2048, `privateKeyPem` PKCS#8 (`-----BEGIN PRIVATE KEY-----`, what
 * the custody code seals) and `publicKeyPem` SPKI (`-----BEGIN PUBLIC KEY-----`, what the user
 * registers under Account & security → API keys).
 */
export function generateKalshiAgentKey(): { publicKeyPem: string; privateKeyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKeyPem: publicKey, privateKeyPem: privateKey };
}

/** The SPKI PEM public key of an RSA private key PEM. @throws Error when the PEM is not a private key. */
export function publicKeyPemOf(privateKeyPem: string): string {
  return createPublicKey(createPrivateKey(privateKeyPem)).export({ type: 'spki', format: 'pem' }).toString();
}

/** Kalshi API key ids are UUIDs (e.g. `a952bcbe-ec3b-4b5b-b8f9-11dae589608c` in Kalshi's quick start). */
export const KALSHI_KEY_ID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
