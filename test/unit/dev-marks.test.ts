/**
 * The dev simulators' marks (scripts/lib/dev-marks.ts): held in memory from the mark store and its NOTIFY `marks`, so a
 * simulated venue prices an order at the mark published just before it without reading PostgreSQL per order.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openOrm } from '../../db/orm.js';
import { Decimal } from '../../domain/decimal.js';
import { publishMark } from '../../modules/market/feeds/marks.js';
import { startDevMarks, type DevMarks } from '../../scripts/lib/dev-marks.js';
import { waitFor } from '../support/wait.js';

const VENUE = `devmarks${Date.now()}`;
const tick = (symbol: string, mark: string) => {
  const d = new Decimal(mark);
  return { venue: VENUE, symbol, ts: Date.now(), mark: d, bid: d, ask: d, book: { bids: [], asks: [] } };
};

describe('startDevMarks', () => {
  let orm: MikroORM;
  let marks: DevMarks;
  beforeAll(async () => {
    orm = await openOrm(inject('databaseUrl'));
    await publishMark(orm, tick('A.SIM', '100.50'));
    marks = await startDevMarks(inject('databaseUrl'));
  });
  afterAll(async () => {
    await marks.stop();
    await orm.close();
  });

  it('answers a mark stored before it started, in canonical form, and null for a pair that has none', async () => {
    expect(await marks.markOf(VENUE, 'A.SIM')).toBe('100.5');
    expect(await marks.markOf(VENUE, 'NONE.SIM')).toBeNull();
  });

  it('follows every later upsert of a mark, a new pair included', async () => {
    await publishMark(orm, tick('A.SIM', '101.25'));
    await publishMark(orm, tick('B.SIM', '7'));
    expect(
      await waitFor(
        () => marks.markOf(VENUE, 'A.SIM'),
        (m) => m === '101.25',
      ),
    ).toBe('101.25');
    expect(
      await waitFor(
        () => marks.markOf(VENUE, 'B.SIM'),
        (m) => m === '7',
      ),
    ).toBe('7');
  });

  it('answers from memory: a row changed without its NOTIFY is not read', async () => {
    const db = orm.em.getConnection();
    await db.execute(`alter table marks disable trigger marks_notify`);
    try {
      await db.execute(`update marks set mark = 5 where venue = ? and symbol = 'B.SIM'`, [VENUE]);
    } finally {
      await db.execute(`alter table marks enable trigger marks_notify`);
    }
    expect(await marks.markOf(VENUE, 'B.SIM')).toBe('7');
  });
});
