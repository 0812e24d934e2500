/**
 * The branded trading page (issue 7): one bundle for every tenant. The tenant is whichever this
 * host resolves to (docs/api.md §5.6); its branding and theme come from `GET /api/branding` and
 * `GET /api/theme` and are read again whenever the tab becomes visible, so an operator's change
 * shows without a rebuild. Signed in, it shows marks, candles, the order ticket, working orders,
 * positions, fills and the prop-firm challenges on sale (components/Challenges.tsx), all through the public API.
 */
import { useCallback, useEffect, useState } from 'react';
import { call, clientOf, describeError, firstAccount, type Branding, type Session, type Theme } from './api';
import { applyBranding, applyTheme, type Mode } from './theme';
import { useAccountStream } from './account-stream';
import { SignIn } from './components/SignIn';
import { Marks } from './components/Marks';
import { Chart } from './components/Chart';
import { Ticket } from './components/Ticket';
import { Fills, Positions, WorkingOrders } from './components/Tables';
import { Challenges } from './components/Challenges';

/** The venue the page trades: the platform's own matching engine (docs/api.md §1). */
const VENUE = 'paper';
/** The bearer of an API-key session lives in this tab only (sessionStorage); a wallet session is its cookie. */
const STORED = 'trade.session';

function useTenantLook() {
  const [look, setLook] = useState<{ branding: Branding; theme: Theme } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    Promise.all([call<Branding>('GET', '/api/branding'), call<Theme>('GET', '/api/theme')]).then(
      ([branding, theme]) => setLook({ branding, theme }),
      (err) => setError(describeError(err)),
    );
  }, []);
  useEffect(() => {
    load();
    const onVisible = () => document.visibilityState === 'visible' && load();
    document.addEventListener('visibilitychange', onVisible);
    return () => document.removeEventListener('visibilitychange', onVisible);
  }, [load]);
  return { look, error };
}

/**
 * Who a cookie session is, for the header: the email (else the subject) of the trader's first linked identity
 * (`GET /api/auth/identities`: a social or email sign-in, a linked wallet), else `wallet` (a wallet agent's owner).
 */
async function cookieLabel(): Promise<string> {
  try {
    const { identities } = await call<{ identities: { subject: string; email: string | null }[] }>(
      'GET',
      '/api/auth/identities',
    );
    return identities[0]?.email ?? identities[0]?.subject ?? 'wallet';
  } catch {
    return 'wallet';
  }
}

/**
 * Restores this tab's session: the stored API-key bearer, else a live cookie session (a wallet, social or email
 * sign-in, which comes back to the page with the cookie); null when neither.
 */
async function restoreSession(): Promise<Session | null> {
  const stored = sessionStorage.getItem(STORED);
  if (stored) {
    const s = JSON.parse(stored) as Session;
    try {
      return { ...s, account: await firstAccount(s.token) };
    } catch {
      sessionStorage.removeItem(STORED);
    }
  }
  try {
    const account = await firstAccount();
    return { kind: 'wallet', label: await cookieLabel(), account };
  } catch {
    return null;
  }
}

export function App() {
  const { look, error } = useTenantLook();
  const [mode, setMode] = useState<Mode | null>(null);
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const effectiveMode = mode ?? look?.theme.defaultMode ?? 'dark';

  useEffect(() => void restoreSession().then(setSession), []);
  useEffect(() => {
    if (!look) return;
    applyTheme(look.theme, effectiveMode);
    applyBranding(look.branding);
  }, [look, effectiveMode]);

  const signIn = (s: Session) => {
    if (s.token) sessionStorage.setItem(STORED, JSON.stringify(s));
    setSession(s);
  };
  const signOut = async () => {
    if (session?.token)
      await call('POST', '/api/auth/api-token/revoke', { body: { token: session.token } }).catch(() => undefined);
    else await call('POST', '/api/auth/siwe/logout').catch(() => undefined);
    sessionStorage.removeItem(STORED);
    setSession(null);
  };

  if (error)
    return (
      <main className="fatal" role="alert">
        This trading page is unavailable here: {error}
      </main>
    );
  if (!look || session === undefined) return <main className="loading">Loading…</main>;
  const { branding, theme } = look;
  return (
    <div className="app">
      <header>
        <div className="brand" data-testid="brand">
          {branding.logoUrl && <img src={branding.logoUrl} alt="" height={28} />}
          <span>{branding.displayName}</span>
        </div>
        <div className="header-right">
          <button
            type="button"
            className="ghost"
            onClick={() => setMode(effectiveMode === 'dark' ? 'light' : 'dark')}
            aria-label="Toggle light and dark"
          >
            {effectiveMode === 'dark' ? 'Light' : 'Dark'}
          </button>
          {session && (
            <>
              <span className="who" data-testid="signed-in-as">
                {session.account.name} · {session.label}
              </span>
              <button type="button" className="ghost" onClick={() => void signOut()}>
                Sign out
              </button>
            </>
          )}
        </div>
      </header>
      {session ? (
        <Trading session={session} theme={theme} mode={effectiveMode} />
      ) : (
        <SignIn displayName={branding.displayName} onSession={signIn} />
      )}
      {branding.supportEmail && (
        <footer>
          Support: <a href={`mailto:${branding.supportEmail}`}>{branding.supportEmail}</a>
        </footer>
      )}
    </div>
  );
}

function Trading(props: { session: Session; theme: Theme; mode: Mode }) {
  const account = useAccountStream(props.session);
  const [symbols, setSymbols] = useState<string[]>([]);
  const [symbol, setSymbol] = useState('');
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    clientOf(props.session)<{ symbols: { symbol: string }[] }>('GET', `/api/v1/symbols/${VENUE}`).then(
      ({ symbols: list }) => {
        setSymbols(list.map((s) => s.symbol));
        setSymbol((cur) => cur || list[0]?.symbol || '');
      },
      (err) => setFailure(describeError(err)),
    );
  }, [props.session]);
  if (!symbol) return <main className="loading">{failure ?? 'Loading markets…'}</main>;
  return (
    <main className="trading" data-stream={account.status}>
      <Marks venue={VENUE} symbols={symbols} selected={symbol} onSelect={setSymbol} />
      <div className="grid">
        <Chart venue={VENUE} symbol={symbol} palette={props.theme[props.mode]} token={props.session.token} />
        <Ticket session={props.session} venue={VENUE} symbol={symbol} intents={account.intents} />
      </div>
      <WorkingOrders session={props.session} orders={account.workingOrders} />
      <Positions session={props.session} positions={account.positions} />
      <Fills fills={account.fills} />
      <Challenges session={props.session} />
    </main>
  );
}
