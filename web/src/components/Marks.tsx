/**
 * The canonical mark, bid and ask of each listed symbol, live from `/ws/quotes` (docs/api.md §6.1;
 * `Subscribe { topics: ['<venue>:<symbol>', ...] }` → a `Quote` at once and on every change).
 * Clicking a symbol selects it for the chart and the ticket.
 */
import { useEffect, useState } from 'react';
import { keepChannel } from '../sockets';

interface Quote {
  mark: string;
  bid: string | null;
  ask: string | null;
}

export function Marks(props: { venue: string; symbols: string[]; selected: string; onSelect(symbol: string): void }) {
  const [quotes, setQuotes] = useState<Record<string, Quote>>({});
  const key = props.symbols.join(',');
  useEffect(() => {
    if (!props.symbols.length) return;
    const channel = keepChannel('/ws/quotes', {
      onOpen: (send) => send({ type: 'Subscribe', topics: props.symbols.map((s) => `${props.venue}:${s}`) }),
      onFrame: (f) => {
        if (f.type === 'Quote')
          setQuotes((q) => ({
            ...q,
            [f.symbol as string]: {
              mark: f.mark as string,
              bid: (f.bid as string) ?? null,
              ask: (f.ask as string) ?? null,
            },
          }));
      },
    });
    return () => channel.close();
  }, [props.venue, key]);

  return (
    <nav className="marks" aria-label="Marks">
      {props.symbols.map((s) => (
        <button
          key={s}
          type="button"
          className={s === props.selected ? 'mark selected' : 'mark'}
          onClick={() => props.onSelect(s)}
          data-testid={`mark-${s}`}
        >
          <span className="symbol">{s}</span>
          <span className="price" data-testid={`mark-price-${s}`}>
            {quotes[s]?.mark ?? '—'}
          </span>
          <span className="spread">
            {quotes[s]?.bid ?? '—'} / {quotes[s]?.ask ?? '—'}
          </span>
        </button>
      ))}
    </nav>
  );
}
