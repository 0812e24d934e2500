/** NOTIFY `marks` payloads (db/mark-notice.ts): the mark itself since migration MarkNotice, the pair alone before. */
import { describe, expect, it } from 'vitest';
import { parseMarkNotice } from '../../db/mark-notice.js';

describe('parseMarkNotice', () => {
  it('reads the pair and its mark, prices exactly as PostgreSQL printed them', () => {
    expect(parseMarkNotice('paper BTC.PAPER 86512.50000000 86512.00000000 86513.00000000 1795512812637')).toEqual({
      key: 'paper BTC.PAPER',
      mark: {
        venue: 'paper',
        symbol: 'BTC.PAPER',
        mark: '86512.50000000',
        bid: '86512.00000000',
        ask: '86513.00000000',
        ts: new Date(1795512812637).toISOString(),
      },
    });
  });

  it('names only the pair for the old payload, so the listener reads the row', () => {
    expect(parseMarkNotice('hyperliquid ETH.HL')).toEqual({ key: 'hyperliquid ETH.HL' });
  });
});
