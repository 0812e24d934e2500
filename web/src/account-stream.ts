/**
 * The signed-in account's live state over `/ws/risk` (docs/api.md §6.2, §6.3): working orders, positions
 * and fills. Seeding follows rule 3: authenticate (a bootstrap token for a bearer; a cookie session
 * is authenticated by the server at connect), subscribe, then fetch the REST snapshot, then apply the
 * frames buffered meanwhile. `Resync-Required` and every reconnect re-snapshot.
 */
import { useEffect, useState } from 'react';
import { clientOf, type Fill, type Intent, type Position, type Session } from './api';
import { keepChannel, type Frame } from './sockets';

/** What the page shows of the account. */
export interface AccountView {
  status: 'connecting' | 'live' | 'closed';
  workingOrders: Intent[];
  positions: Position[];
  fills: Fill[];
  /** The newest `Order-Intent-Update` of each intent composed here, by intent id. */
  intents: Record<string, Intent>;
}

const TOPICS = ['Order-Intent-Changed', 'Position-Changed', 'Fills'];
const FILLS_SHOWN = 50;
const EMPTY: AccountView = { status: 'connecting', workingOrders: [], positions: [], fills: [], intents: {} };

/** Applies one `/ws/risk` frame to the view (pure). */
export function applyFrame(v: AccountView, f: Frame): AccountView {
  const data = f.data as Record<string, unknown> | undefined;
  switch (f.type) {
    case 'Open-Orders-Update':
      return { ...v, workingOrders: (data?.orders as Intent[]) ?? [] };
    case 'Order-Intent-Update': {
      const intent = data as unknown as Intent;
      const rest = v.workingOrders.filter((o) => o.intentId !== intent.intentId);
      return {
        ...v,
        intents: { ...v.intents, [intent.intentId]: intent },
        workingOrders: intent.orderStatus === 'open' ? [...rest, intent] : rest,
      };
    }
    case 'Position-Changed': {
      const p = data as unknown as Position;
      const rest = v.positions.filter((x) => !(x.venue === p.venue && x.symbol === p.symbol));
      return {
        ...v,
        positions: p.side === 'flat' ? rest : [...rest, p].sort((a, b) => a.symbol.localeCompare(b.symbol)),
      };
    }
    case 'Fill': {
      const fill = data as unknown as Fill;
      return v.fills.some((x) => x.fillId === fill.fillId)
        ? v
        : { ...v, fills: [fill, ...v.fills].slice(0, FILLS_SHOWN) };
    }
    default:
      return v;
  }
}

/** Subscribes to the session's account; the view re-renders on every change. */
export function useAccountStream(session: Session): AccountView {
  const [view, setView] = useState<AccountView>(EMPTY);
  useEffect(() => {
    const api = clientOf(session);
    const id = session.account.accountId;
    let buffer: Frame[] | null = null;
    const snapshot = async () => {
      buffer = [];
      const [orders, positions, fills] = await Promise.all([
        api<{ orders: Intent[] }>('GET', `/api/v1/accounts/${id}/open-orders`),
        api<{ positions: Position[] }>('GET', `/api/v1/accounts/${id}/positions`),
        api<{ fills: Fill[] }>('GET', `/api/v1/accounts/${id}/fills?limit=${FILLS_SHOWN}`),
      ]);
      const pending = buffer;
      buffer = null;
      setView((v) =>
        pending.reduce(applyFrame, {
          ...v,
          status: 'live',
          workingOrders: orders.orders,
          positions: positions.positions,
          fills: fills.fills,
        }),
      );
    };
    const channel = keepChannel('/ws/risk', {
      async onOpen(send) {
        if (!session.token) return; // the cookie authenticates this socket at connect
        const boot = await api<{ data: { riskEngineWss: { token: string } } }>('POST', '/api/auth/bootstrap');
        send({ type: 'Authenticate', token: boot.data.riskEngineWss.token });
      },
      onFrame(f, send) {
        if (f.type === 'Authenticated') return void send({ type: 'Subscribe', topics: TOPICS });
        if (f.type === 'Result' && f.ok === true && Array.isArray(f.topics))
          return void snapshot().catch(() => setView((v) => ({ ...v, status: 'closed' })));
        if (f.type === 'Resync-Required') return void snapshot();
        if (typeof f.accountId === 'string' && f.accountId !== id) return; // another account of this trader
        if (buffer) return void buffer.push(f);
        setView((v) => applyFrame(v, f));
      },
      onStatus: (s) => s !== 'open' && setView((v) => ({ ...v, status: s === 'closed' ? 'closed' : 'connecting' })),
    });
    return () => channel.close();
  }, [session]);
  return view;
}
