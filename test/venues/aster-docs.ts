/**
 * The demonstration values Aster publishes in its v3 futures docs (asterdex/api-docs
 * `V3(Recommended)/EN/aster-finance-futures-api-v3.md`, "Example of POST /fapi/v3/order"): an API-wallet
 * key "for demonstration purposes only; the privateKey corresponds to the signer", its signer and user
 * addresses, the printed µs nonce and the sample order's parameters. Signing known answers are built on them.
 */

/** The published demonstration API-wallet private key. */
export const DOC_KEY = '0x4fd0a42218f3eae43a6ce26d22544e986139a01e5b34a62db53757ffca81bae1' as const;
/** The address of {@link DOC_KEY}, as the docs print it. */
export const DOC_SIGNER = '0x21cF8Ae13Bb72632562c6Fff438652Ba1a151bb0';
/** The docs' user (main wallet) address. */
export const DOC_USER = '0x63DD5aCC6b1aa0f563956C0e534DD30B6dcF7C4e';
/** The docs' printed `math.trunc(time.time()*1000000)`: a µs nonce. */
export const DOC_NONCE = 1748310859508867n;
/** The sample order's parameters, in the docs' order. */
export const DOC_ORDER = [
  ['symbol', 'ASTERUSDT'],
  ['type', 'LIMIT'],
  ['side', 'BUY'],
  ['timeInForce', 'GTC'],
  ['quantity', '20'],
  ['price', '0.5'],
] as const;
