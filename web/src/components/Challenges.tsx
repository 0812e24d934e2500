/**
 * The prop-firm challenges (docs/api.md §4.8 "Traders' side of the prop firm"): the offers of this tenant's
 * live firms (`GET /api/v1/prop/offers`: price, account size, profit target, loss limits, minimum trading
 * days, payout split, venue) with a Buy button (`POST /api/v1/prop/challenges { templateId }`), and the
 * trader's challenges (`GET /api/v1/prop/challenges`). A bought challenge waits for its price, paid
 * on-chain from the trader's wallet straight into the firm's PropInstance: the panel shows the deposit the
 * buy answered (stablecoin, amount, the calls in order) and reads the challenges again every 3 s while
 * one waits, so its activation shows. Nothing is shown when the tenant sells no challenge and the
 * trader has none.
 */
import { useCallback, useEffect, useState } from 'react';
import { call, describeError, type Challenge, type Offer, type Session } from '../api';
import { ErrorLine } from './ErrorLine';
import { TableHead } from './Tables';

/** How often the challenges are read again while one waits for its deposit, ms. */
const PENDING_POLL_MS = 3000;

/** A fraction as a decimal string (`"0.055"`) as a percentage (`"5.5 %"`), without binary floating point. */
function percent(fraction: string): string {
  const [int, frac = ''] = fraction.split('.');
  const digits = int + frac.padEnd(2, '0');
  const whole = digits.slice(0, int.length + 2).replace(/^0+(?=\d)/, '');
  const rest = digits.slice(int.length + 2).replace(/0+$/, '');
  return `${whole}${rest ? `.${rest}` : ''} %`;
}

/** Every offer, page after page (`{ data, nextCursor }`). @throws ApiFailure */
async function allOffers(token?: string): Promise<Offer[]> {
  const offers: Offer[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: Offer[]; nextCursor: string | null } = await call(
      'GET',
      `/api/v1/prop/offers?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { token },
    );
    offers.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return offers;
}

export function Challenges(props: { session: Session }) {
  const token = props.session.token;
  const [offers, setOffers] = useState<Offer[]>([]);
  const [challenges, setChallenges] = useState<Challenge[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [buying, setBuying] = useState<string | null>(null);

  const readChallenges = useCallback(
    () =>
      call<{ data: Challenge[] }>('GET', '/api/v1/prop/challenges', { token }).then(
        ({ data }) => setChallenges(data),
        (err) => setError(describeError(err)),
      ),
    [token],
  );
  useEffect(() => {
    allOffers(token).then(setOffers, (err) => setError(describeError(err)));
    void readChallenges();
  }, [token, readChallenges]);
  const waiting = challenges.some((c) => c.status === 'pending_payment');
  useEffect(() => {
    if (!waiting) return;
    const timer = setInterval(() => void readChallenges(), PENDING_POLL_MS);
    return () => clearInterval(timer);
  }, [waiting, readChallenges]);

  const buy = async (offer: Offer) => {
    setBuying(offer.templateId);
    setError(null);
    try {
      const bought = await call<Challenge>('POST', '/api/v1/prop/challenges', {
        token,
        body: { templateId: offer.templateId },
      });
      setChallenges((cur) => [bought, ...cur.filter((c) => c.propAccountId !== bought.propAccountId)]);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBuying(null);
    }
  };

  if (!offers.length && !challenges.length && !error) return null;
  const names = new Map(offers.map((o) => [o.templateId, `${o.firmName} · ${o.name}`]));
  return (
    <section className="panel" aria-label="Challenges">
      <h3>Challenges</h3>
      <ErrorLine error={error} />
      <table data-testid="offers">
        <TableHead
          columns={[
            'Firm',
            'Challenge',
            'Price (USD)',
            'Account (USD)',
            'Profit target',
            'Max daily loss',
            'Max drawdown',
            'Min days',
            'Profit split',
            'Venue',
          ]}
          actions
        />
        <tbody>
          {offers.map((o) => (
            <tr key={o.templateId} data-template={o.templateId}>
              <td>{o.firmName}</td>
              <td>{o.name}</td>
              <td>{o.priceUsd}</td>
              <td>{o.accountSizeUsd}</td>
              <td>{percent(o.profitTargetPct)}</td>
              <td>{percent(o.maxDailyLossPct)}</td>
              <td>{percent(o.maxDrawdownPct)}</td>
              <td>{o.minTradingDays}</td>
              <td>{percent(o.payoutSplitPct)}</td>
              <td>{o.venue}</td>
              <td>
                <button type="button" disabled={buying !== null} onClick={() => void buy(o)}>
                  Buy
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {challenges.length > 0 && (
        <>
          <h3>Your challenges</h3>
          <table data-testid="challenges">
            <TableHead columns={['Challenge', 'Status', 'Account (USD)', 'Trading account', 'Bought']} />
            <tbody>
              {challenges.map((c) => (
                <tr key={c.propAccountId} data-challenge={c.propAccountId} data-status={c.status}>
                  <td>{names.get(c.templateId) ?? c.templateId}</td>
                  <td>
                    {c.status}
                    {c.breachReason ? ` (${c.breachReason})` : ''}
                  </td>
                  <td>{c.startingBalanceUsd}</td>
                  <td>{c.accountId}</td>
                  <td>{new Date(c.createdAt).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {challenges
            .filter((c) => c.status === 'pending_payment' && c.deposit)
            .map((c) => (
              <Deposit key={c.propAccountId} challenge={c} />
            ))}
        </>
      )}
    </section>
  );
}

/** What the trader's wallet sends to pay a challenge: the buy's `deposit`, calls in order. */
function Deposit(props: { challenge: Challenge }) {
  const d = props.challenge.deposit!;
  return (
    <div className="deposit" data-testid="deposit" data-challenge={props.challenge.propAccountId}>
      <p>
        Waiting for your payment of {d.amountUsd} USD ({d.amountUnits} units of {d.stablecoin}, chain {d.chainId}) into
        the firm’s contract {d.instance}. Send from your wallet, in this order:
      </p>
      <ol>
        {d.calls.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ol>
    </div>
  );
}
