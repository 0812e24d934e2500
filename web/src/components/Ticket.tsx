/**
 * The order ticket (docs/api.md §2.5, §4.4): side, type (market or limit), size in contracts, limit price
 * (USD), time in force (`Gtc`, `Ioc`, `Alo`) and reduce-only, composed with
 * `POST /api/v1/oms/intents` under a fresh `Idempotency-Key`, so a retried click never places a
 * second order. The intent's progress (state, venue order id, average fill price) follows its
 * `Order-Intent-Update` frames.
 */
import { useState, type FormEvent } from 'react';
import { call, describeError, type Intent, type Session } from '../api';
import { ErrorLine } from './ErrorLine';
import { TextField } from './TextField';

export function Ticket(props: { session: Session; venue: string; symbol: string; intents: Record<string, Intent> }) {
  const [side, setSide] = useState<'buy' | 'sell'>('buy');
  const [type, setType] = useState<'market' | 'limit'>('market');
  const [qty, setQty] = useState('0.01');
  const [price, setPrice] = useState('');
  const [tif, setTif] = useState<'Gtc' | 'Ioc' | 'Alo'>('Gtc');
  const [reduceOnly, setReduceOnly] = useState(false);
  const [lastIntentId, setLastIntentId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const last = lastIntentId ? props.intents[lastIntentId] : undefined;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const key = crypto.randomUUID();
    try {
      const body = {
        venue: props.venue,
        symbol: props.symbol,
        side,
        type,
        qty: qty.trim(),
        ...(type === 'limit' ? { price: price.trim(), timeInForce: tif } : {}),
        reduceOnly,
        accountId: props.session.account.accountId,
        clientOrderId: `web-${key}`,
      };
      const res = await call<{ intentId: string }>('POST', '/api/v1/oms/intents', {
        token: props.session.token,
        body,
        headers: { 'idempotency-key': key },
      });
      setLastIntentId(res.intentId);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel ticket" aria-label="Order ticket">
      <h3>Order ticket · {props.symbol}</h3>
      <form onSubmit={(e) => void submit(e)}>
        <div className="sides" role="radiogroup" aria-label="Side">
          {(['buy', 'sell'] as const).map((s) => (
            <button
              key={s}
              type="button"
              role="radio"
              aria-checked={side === s}
              className={side === s ? `side ${s} on` : `side ${s}`}
              onClick={() => setSide(s)}
            >
              {s === 'buy' ? 'Buy / Long' : 'Sell / Short'}
            </button>
          ))}
        </div>
        <label>
          Type
          <select name="type" value={type} onChange={(e) => setType(e.target.value as 'market' | 'limit')}>
            <option value="market">Market</option>
            <option value="limit">Limit</option>
          </select>
        </label>
        <TextField label="Size (contracts)" name="qty" inputMode="decimal" value={qty} onChange={setQty} />
        {type === 'limit' && (
          <>
            <TextField label="Limit price (USD)" name="price" inputMode="decimal" value={price} onChange={setPrice} />
            <label>
              Time in force
              <select name="timeInForce" value={tif} onChange={(e) => setTif(e.target.value as 'Gtc' | 'Ioc' | 'Alo')}>
                <option value="Gtc">GTC</option>
                <option value="Ioc">IOC</option>
                <option value="Alo">Post only (ALO)</option>
              </select>
            </label>
          </>
        )}
        <label className="check">
          <input
            name="reduceOnly"
            type="checkbox"
            checked={reduceOnly}
            onChange={(e) => setReduceOnly(e.target.checked)}
          />{' '}
          Reduce-only
        </label>
        <button type="submit" className={`primary ${side}`} disabled={busy}>
          {side === 'buy' ? 'Buy' : 'Sell'} {props.symbol}
        </button>
      </form>
      <ErrorLine error={error} />
      {last && (
        <p className="intent-status" data-testid="intent-status" data-state={last.state}>
          {last.intentId}: {last.state}
          {last.venueOrderId ? ` · ${last.venueOrderId}` : ''}
          {last.avgFillPrice ? ` · avg ${last.avgFillPrice}` : ''}
          {last.rejectReason ? ` · ${last.rejectReason}` : ''}
        </p>
      )}
    </section>
  );
}
