/**
 * Headless Chromium for the browser tests (Debian's `chromium`, driven by playwright-core): its path and the
 * flags this machine's closed network needs (no background calls home), headless, as root.
 */

/** `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Launch flags: no sandbox (root), no GPU, no QUIC, and none of Chromium's own calls out. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
