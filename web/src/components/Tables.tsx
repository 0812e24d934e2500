/**
 * The account's working orders (cancel with `POST /api/v1/oms/cancel { venueOrderId }`), open
 * positions (close one with a reduce-only market order of the opposite side; flatten all with
 * `POST /api/v1/oms/flatten { accountId }`) and newest fills, as
 * `/ws/risk` keeps them (account-stream.ts). Sizes in contracts, prices and PnL in USD, shown as the
 * API's decimal strings.
 */
import { useState, type ReactNode } from 'react';
import { call, describeError, type Fill, type Intent, type Position, type Session } from '../api';
import { ErrorLine } from './ErrorLine';

/** A table's header row: one cell per column name, and an empty last cell for the row actions when `actions`. */
export function TableHead(props: { columns: string[]; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {props.columns.map((c) => (
          <th key={c}>{c}</th>
        ))}
        {props.actions && <th />}
      </tr>
    </thead>
  );
}

/**
 * One table in its panel: the heading `title`, the last write's `error` (none when null or absent), a header row of
 * `columns` (and an empty cell for the row actions when `actions`) and the body `rows`.
 */
function TablePanel(props: {
  label: string;
  title: ReactNode;
  testId: string;
  columns: string[];
  actions?: boolean;
  error?: string | null;
  children: ReactNode;
}) {
  return (
    <section className="panel" aria-label={props.label}>
      <h3>{props.title}</h3>
      <ErrorLine error={props.error ?? null} />
      <table data-testid={props.testId}>
        <TableHead columns={props.columns} actions={props.actions} />
        <tbody>{props.children}</tbody>
      </table>
    </section>
  );
}

/** Runs one write and shows its error beside the tables. */
function useAction(session: Session) {
  const [error, setError] = useState<string | null>(null);
  const run = (path: string, body: unknown) =>
    call('POST', path, { token: session.token, body, headers: { 'idempotency-key': crypto.randomUUID() } }).then(
      () => setError(null),
      (err) => setError(describeError(err)),
    );
  return { error, run };
}

/** The account's working orders, each with its cancel. */
export function WorkingOrders(props: { session: Session; orders: Intent[] }) {
  const { error, run } = useAction(props.session);
  return (
    <TablePanel
      label="Working orders"
      title={`Working orders (${props.orders.length})`}
      testId="working-orders"
      columns={['Symbol', 'Side', 'Type', 'Price', 'Size', 'Filled', 'Venue order']}
      actions
      error={error}
    >
      {props.orders.map((o) => (
        <tr key={o.intentId} data-intent={o.intentId}>
          <td>{o.symbol}</td>
          <td className={o.side}>{o.side}</td>
          <td>{o.type}</td>
          <td>{o.price ?? 'market'}</td>
          <td>{o.qty}</td>
          <td>{o.filledQty}</td>
          <td>{o.venueOrderId ?? '—'}</td>
          <td>
            {o.venueOrderId && (
              <button type="button" onClick={() => void run('/api/v1/oms/cancel', { venueOrderId: o.venueOrderId })}>
                Cancel
              </button>
            )}
          </td>
        </tr>
      ))}
    </TablePanel>
  );
}

/** The reduce-only market order that closes a position. */
const closeOrder = (session: Session, p: Position) => ({
  venue: p.venue,
  symbol: p.symbol,
  side: p.side === 'long' ? 'sell' : 'buy',
  type: 'market',
  qty: p.qty.replace(/^-/, ''),
  reduceOnly: true,
  accountId: session.account.accountId,
});

/** The open positions, each with its close, and the flatten of all. */
export function Positions(props: { session: Session; positions: Position[] }) {
  const { error, run } = useAction(props.session);
  return (
    <TablePanel
      label="Positions"
      title={
        <>
          Positions ({props.positions.length}){' '}
          {props.positions.length > 0 && (
            <button
              type="button"
              onClick={() => void run('/api/v1/oms/flatten', { accountId: props.session.account.accountId })}
            >
              Flatten all
            </button>
          )}
        </>
      }
      testId="positions"
      columns={['Symbol', 'Side', 'Size', 'Entry', 'Mark', 'uPnL (USD)']}
      actions
      error={error}
    >
      {props.positions.map((p) => (
        <tr key={`${p.venue}:${p.symbol}`} data-symbol={p.symbol}>
          <td>{p.symbol}</td>
          <td className={p.side}>{p.side}</td>
          <td>{p.qty}</td>
          <td>{p.avgEntryPrice}</td>
          <td>{p.markPrice ?? '—'}</td>
          <td className={p.unrealizedPnlUsd?.startsWith('-') ? 'negative' : 'positive'}>{p.unrealizedPnlUsd ?? '—'}</td>
          <td>
            <button type="button" onClick={() => void run('/api/v1/oms/intents', closeOrder(props.session, p))}>
              Close
            </button>
          </td>
        </tr>
      ))}
    </TablePanel>
  );
}

/** The newest fills. */
export function Fills(props: { fills: Fill[] }) {
  return (
    <TablePanel
      label="Fills"
      title="Fills"
      testId="fills"
      columns={['Time', 'Symbol', 'Side', 'Size', 'Price', 'Fee (USD)']}
    >
      {props.fills.map((f) => (
        <tr key={f.fillId} data-intent={f.intentId}>
          <td>{new Date(f.executedAt).toLocaleTimeString()}</td>
          <td>{f.symbol}</td>
          <td className={f.side}>{f.side}</td>
          <td>{f.qty}</td>
          <td>{f.price}</td>
          <td>{f.feeUsd}</td>
        </tr>
      ))}
    </TablePanel>
  );
}
