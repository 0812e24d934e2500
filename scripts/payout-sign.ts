/**
 * `npm run payout:sign -- <firmId> <payoutId> [--execute]` (README "The on-chain prop firm" → dev walkthrough):
 * on the dev stack (`npm run dev`), authorises a payout of a firm owned by the demo Safe with the demo
 * owners' keys, as the firm's owners would with their wallets. Dev only: refused with NODE_ENV=production.
 *
 * 1. Mints the demo operator's bearer (`.data/dev.json` `operator`, scope `firm:operate`) and reads
 *    `GET /api/v1/firms/{firmId}/payouts/{payoutId}`, waiting (up to 20 s) until it presents a Safe
 *    transaction built for the Safe's current nonce (the payout workflow builds it, and rebuilds it
 *    when the Safe moves on).
 * 2. Signs what it presents — `safeTx.typedData`, checked against `safeTx`'s fields and `safeTxHash`
 *    (scripts/lib/safe-sign.ts) — with as many of the demo owners' keys (`.data/demo-safe-owner-<n>`)
 *    as the Safe's threshold, read on-chain; signatures sorted by owner address.
 * 3. Posts `POST /api/v1/firms/{firmId}/payouts/{payoutId}/authorization` `{ signatures }` and prints
 *    the answer (exit 1 on a refusal).
 * 4. With `--execute` (the platform never sends a firm's funds): sends the Safe's `execTransaction` from
 *    the first signing owner (topped up with gas ether on anvil), prints the transaction hash, and waits
 *    (up to 60 s) for the payout to read `executed`. A payout already `authorized` is re-signed and executed.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isAddressEqual, parseEther, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { executeSafeTx, readSafe } from '../modules/prop/chain/index.js';
import { publicClient } from '../modules/prop/chain/clients.js';
import { anvilRpc } from './lib/anvil.js';
import { presentedSafeTx, signSafeTxAsOwners, type PresentedPayout } from './lib/safe-sign.js';
import type { DevJson } from './dev.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const DATA = path.join(ROOT, '.data');
const fail: (msg: string, code?: number) => never = (msg, code = 1) => {
  console.error(`payout:sign: ${msg}`);
  process.exit(code);
};

if (process.env.NODE_ENV === 'production')
  fail('dev only: it signs with the demo Safe owners’ keys in .data/ (refused with NODE_ENV=production)');
const args = process.argv.slice(2);
const execute = args.includes('--execute');
const [firmId, payoutId] = args.filter((a) => !a.startsWith('--'));
if (!firmId || !payoutId) fail('usage: npm run payout:sign -- <firmId> <payoutId> [--execute]', 2);
const devFile = path.join(DATA, 'dev.json');
if (!existsSync(devFile)) fail('no .data/dev.json — start the stack first with `npm run dev`');
const dev: DevJson = JSON.parse(readFileSync(devFile, 'utf8'));
const demoSafe = dev.chain?.safe;
if (!dev.chain || !demoSafe)
  fail('the dev chain has no demo Safe (CHAIN_RPC_URL was set): the firm’s own owners sign its payouts');
const rpcUrl = dev.chain.rpcUrl;
const ownerKeys: Hex[] = [];
for (let n = 1; existsSync(path.join(DATA, `demo-safe-owner-${n}`)); n++)
  ownerKeys.push(readFileSync(path.join(DATA, `demo-safe-owner-${n}`), 'utf8').trim() as Hex);

/** Calls the dev api as the demo tenant; resolves `{ status, body }` (body: the JSON answer). */
async function api(method: string, p: string, token?: string, body?: unknown) {
  const res = await fetch(`${dev.baseUrl}${p}`, {
    method,
    headers: {
      'x-tenant-slug': dev.tenantSlug,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).catch((err: Error) => fail(`${dev.baseUrl} unreachable (${err.message}) — is \`npm run dev\` running?`));
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A payout answer, printed without `safeTx` (its hash is printed when signing). */
const show = (body: unknown) =>
  console.log(JSON.stringify(body, (k, v: unknown) => (k === 'safeTx' ? undefined : v), 2));

const minted = await api('POST', '/api/auth/api-token', undefined, {
  apiKey: dev.operator.apiKey,
  apiSecret: dev.operator.apiSecret,
});
if (minted.status !== 200) fail(`minting the demo operator's bearer: ${minted.status} ${JSON.stringify(minted.body)}`);
const token: string = minted.body.token;
const payoutPath = `/api/v1/firms/${encodeURIComponent(firmId)}/payouts/${encodeURIComponent(payoutId)}`;

/**
 * The payout as the api presents it: at once when it is neither `requested` nor `authorized`, else once it
 * presents a Safe transaction for the Safe's current nonce, or as it is after 20 s.
 */
async function readPresented(): Promise<PresentedPayout> {
  for (let i = 0; ; i++) {
    const r = await api('GET', payoutPath, token);
    if (r.status !== 200) fail(`GET ${payoutPath}: ${r.status} ${JSON.stringify(r.body)}`);
    const view = r.body as PresentedPayout;
    if ((view.status !== 'requested' && view.status !== 'authorized') || i >= 40) return view;
    const built = view.safeTx?.safe !== undefined ? view.safeTx : undefined;
    if (built && built.nonce === (await readSafe(rpcUrl, built.safe as Address)).nonce.toString()) return view;
    await sleep(500);
  }
}

const view = await readPresented();
console.log(`payout ${view.payoutId}: ${view.status}, safeTxHash ${view.safeTxHash ?? '-'}`);
if (view.status === 'executed') {
  show(view);
  process.exit(0);
}
if (view.status !== 'requested' && view.status !== 'authorized') fail(`payout ${view.payoutId} is ${view.status}`);
const { call, typedData, hash } = (() => {
  try {
    return presentedSafeTx(view);
  } catch (err) {
    return fail((err as Error).message);
  }
})();
if (!isAddressEqual(call.safe, demoSafe))
  fail(`firm ${firmId} is owned by ${call.safe}, not the demo Safe ${demoSafe}: its own owners sign its payouts`);
const safe = await readSafe(rpcUrl, call.safe);
const signing = ownerKeys
  .filter((k) => safe.owners.some((o) => isAddressEqual(o, privateKeyToAccount(k).address)))
  .slice(0, safe.threshold);
if (signing.length < safe.threshold)
  fail(
    `the Safe needs ${safe.threshold} owners' signatures; .data/demo-safe-owner-<n> holds ${signing.length} owner key(s)`,
  );
if (call.nonce !== safe.nonce)
  console.log(`note: the presented transaction is for Safe nonce ${call.nonce}, the Safe is at ${safe.nonce}`);
const { signatures, signers } = await signSafeTxAsOwners(typedData, signing);
console.log(`signed ${hash} (Safe ${call.safe}, nonce ${call.nonce}) as ${signers.join(', ')}`);

if (view.status === 'requested') {
  const answer = await api('POST', `${payoutPath}/authorization`, token, { signatures });
  console.log(`POST ${payoutPath}/authorization → ${answer.status}`);
  show(answer.body);
  if (answer.status !== 200) process.exit(1);
}
if (!execute) {
  console.log(`next: an owner executes it on-chain — npm run payout:sign -- ${firmId} ${payoutId} --execute`);
  process.exit(0);
}

// Any account may send execTransaction (the signatures authorise it); here the first signing owner, whose
// gas ether the local chain lends (anvil_setBalance: the demo Safe exists only on dev's anvil).
const executor = signing[0];
const executorAddress = privateKeyToAccount(executor).address;
if ((await publicClient(rpcUrl).getBalance({ address: executorAddress })) < parseEther('0.1'))
  await anvilRpc(rpcUrl, 'anvil_setBalance', [executorAddress, `0x${parseEther('1').toString(16)}`]);
const txHash = await executeSafeTx(rpcUrl, executor, {
  safe: call.safe,
  to: call.to,
  data: call.data,
  signatures,
}).catch((err: Error) => fail(`execTransaction refused: ${err.message.split('\n')[0]}`));
console.log(`executed the Safe transaction from owner ${executorAddress}: tx ${txHash}`);
for (let i = 0; i < 120; i++) {
  const r = await api('GET', payoutPath, token);
  if (r.body?.status === 'executed') {
    show(r.body);
    process.exit(0);
  }
  await sleep(500);
}
fail(`the payout does not read executed after 60 s (the worker polls the chain); GET ${payoutPath} to follow it`);
