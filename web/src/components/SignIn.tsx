/**
 * Sign in (docs/api.md §5.1): an API key and secret (minted into a 24 h bearer), or a wallet through
 * Sign-In with Ethereum (EIP-4361; `POST /api/auth/siwe/nonce`, the wallet's `personal_sign`,
 * `POST /api/auth/siwe/verify` sets the `service_session` cookie). The wallet is the browser's
 * EIP-1193 provider (`window.ethereum`). Or the tenant's social sign-in (`GET /api/auth/providers`): a
 * "Sign in with <provider>" button per OpenID provider (the browser goes to its start route and comes back with the
 * cookie), and the email magic link (`POST /api/auth/email/start`; the mailed link signs in). A refused social or
 * email sign-in comes back to this page with `?signin_error=<code>`: the page says why, in its own words, and drops the
 * parameter from the address bar.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { getAddress, toHex } from 'viem';
import { createSiweMessage } from 'viem/siwe';
import { call, describeError, firstAccount, signInWithApiKey, type Session } from '../api';
import { ErrorLine } from './ErrorLine';
import { TextField } from './TextField';

/** The EIP-1193 provider the page signs in with. */
interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

/** Signs in with the browser wallet. @throws ApiFailure (`403 wallet_not_linked`, `401 siwe_*`) or the wallet's own error */
async function signInWithWallet(displayName: string): Promise<Session> {
  const eth = (window as unknown as { ethereum?: Eip1193 }).ethereum;
  if (!eth) throw new Error('no wallet found in this browser');
  const [raw] = (await eth.request({ method: 'eth_requestAccounts' })) as string[];
  const address = getAddress(raw);
  const chainId = Number(BigInt((await eth.request({ method: 'eth_chainId' })) as string));
  const { nonce } = await call<{ nonce: string }>('POST', '/api/auth/siwe/nonce');
  const message = createSiweMessage({
    domain: location.host,
    address,
    statement: `Sign in to ${displayName}`,
    uri: location.origin,
    version: '1',
    chainId,
    nonce,
  });
  const signature = (await eth.request({ method: 'personal_sign', params: [toHex(message), address] })) as string;
  await call('POST', '/api/auth/siwe/verify', { body: { message, signature } });
  return { kind: 'wallet', label: address, account: await firstAccount() };
}

/** The query parameter a refused social or email sign-in comes back with (the API's error code). */
const SIGNIN_ERROR = 'signin_error';

/** What the page says for each code a refused social or email sign-in comes back with (docs/api.md §5.1). */
const SIGNIN_REFUSALS: Record<string, string> = {
  oidc_authorization_denied: 'the sign-in was cancelled or refused at the provider.',
  oidc_state_invalid: 'this sign-in expired or was started in another browser: start it again here.',
  oidc_code_invalid: 'the provider’s answer could not be used: start the sign-in again.',
  oidc_id_token_invalid: 'the provider’s answer could not be verified: start the sign-in again.',
  oidc_provider_unavailable: 'the sign-in provider is not answering: try again later.',
  signin_not_allowed: 'this account may not join here (an invitation or an allowed email domain is needed).',
  signin_provider_not_found: 'this way of signing in is no longer offered.',
  identity_linked_elsewhere: 'this sign-in belongs to another trader.',
  plan_limit_reached: 'no new traders can join right now.',
  magic_link_invalid: 'this sign-in link is unknown, used or expired: ask for a new one.',
  custody_unconfigured: 'this sign-in is not set up completely.',
};

/** The refusal the page was sent back with (`?signin_error=<code>`), as one line for the user; null when none. */
function signinErrorOfUrl(): string | null {
  const code = new URLSearchParams(location.search).get(SIGNIN_ERROR);
  if (!code) return null;
  return `${code}: ${SIGNIN_REFUSALS[code] ?? 'the sign-in was refused.'}`;
}

/** Removes `signin_error` from the address bar (a reload then shows the page afresh). */
function dropSigninErrorFromUrl(): void {
  const url = new URL(location.href);
  if (!url.searchParams.has(SIGNIN_ERROR)) return;
  url.searchParams.delete(SIGNIN_ERROR);
  history.replaceState(history.state, '', `${url.pathname}${url.search}${url.hash}`);
}

/** A sign-in provider of the tenant, as `GET /api/auth/providers` lists it. */
interface SigninOption {
  slug: string;
  kind: 'oidc' | 'email';
  displayName: string;
  startPath: string;
}

/** The tenant's social and email sign-in: one button per OpenID provider, and the magic-link form. */
function SocialSignIn(props: { busy: boolean; onError(e: string | null): void }) {
  const [options, setOptions] = useState<SigninOption[]>([]);
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  useEffect(() => {
    call<{ providers: SigninOption[] }>('GET', '/api/auth/providers').then(
      (r) => setOptions(r.providers),
      () => setOptions([]),
    );
  }, []);
  const mailLink = (e: FormEvent, startPath: string) => {
    e.preventDefault();
    props.onError(null);
    call<{ expiresAt: string }>('POST', startPath, { body: { email: email.trim(), returnTo: location.pathname } }).then(
      () => setSent(email.trim()),
      (err) => props.onError(describeError(err)),
    );
  };
  if (!options.length) return null;
  return (
    <>
      <div className="or">or</div>
      {options
        .filter((o) => o.kind === 'oidc')
        .map((o) => (
          <button
            key={o.slug}
            type="button"
            className="secondary"
            disabled={props.busy}
            onClick={() => {
              props.onError(null);
              location.assign(`${o.startPath}?returnTo=${encodeURIComponent(location.pathname)}`);
            }}
          >
            Sign in with {o.displayName}
          </button>
        ))}
      {options
        .filter((o) => o.kind === 'email')
        .map((o) =>
          sent ? (
            <p key={o.slug}>Check {sent}: the link signs you in once, within 15 minutes.</p>
          ) : (
            <form key={o.slug} onSubmit={(e) => mailLink(e, o.startPath)}>
              <TextField label="Email" name="email" autoComplete="email" value={email} onChange={setEmail} />
              <button type="submit" className="secondary" disabled={props.busy || !email.trim()}>
                Email me a sign-in link
              </button>
            </form>
          ),
        )}
    </>
  );
}

/** The sign-in panel: API key, wallet, and the tenant's social and email sign-in; shows why a sign-in was refused. */
export function SignIn(props: { displayName: string; onSession(s: Session): void }) {
  const [apiKey, setApiKey] = useState('');
  const [apiSecret, setApiSecret] = useState('');
  const [error, setError] = useState<string | null>(signinErrorOfUrl);
  const [busy, setBusy] = useState(false);
  useEffect(dropSigninErrorFromUrl, []);

  const attempt = async (how: () => Promise<Session>) => {
    setBusy(true);
    setError(null);
    try {
      props.onSession(await how());
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void attempt(() => signInWithApiKey(apiKey.trim(), apiSecret.trim()));
  };

  return (
    <section className="panel signin" aria-label="Sign in">
      <h2>Sign in to {props.displayName}</h2>
      <form onSubmit={submit}>
        <TextField label="API key" name="apiKey" autoComplete="username" value={apiKey} onChange={setApiKey} />
        <TextField
          label="API secret"
          name="apiSecret"
          type="password"
          autoComplete="current-password"
          value={apiSecret}
          onChange={setApiSecret}
        />
        <button type="submit" className="primary" disabled={busy}>
          Sign in with API key
        </button>
      </form>
      <div className="or">or</div>
      <button
        type="button"
        className="secondary"
        disabled={busy}
        onClick={() => void attempt(() => signInWithWallet(props.displayName))}
      >
        Connect wallet
      </button>
      <SocialSignIn busy={busy} onError={setError} />
      <ErrorLine error={error} />
    </section>
  );
}
