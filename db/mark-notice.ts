/**
 * The payload of NOTIFY `marks` (trigger `marks_notify`, migration MarkNotice): the new mark itself,
 * `<venue> <symbol> <mark> <bid> <ask> <ts, epoch ms>`, so a listener needs no re-read of the row
 * (issue 15). A payload of only `<venue> <symbol>` (the trigger before that migration) names the pair.
 */

/** A canonical mark as a NOTIFY carried it: decimal strings as PostgreSQL printed them, ISO time. */
export interface NoticedMark {
  venue: string;
  symbol: string;
  mark: string;
  bid: string;
  ask: string;
  ts: string;
}

/** The pair key (`<venue> <symbol>`) of a `marks` payload, and its mark when the payload carries one. */
export function parseMarkNotice(payload: string): { key: string; mark?: NoticedMark } {
  const [venue, symbol, mark, bid, ask, tsMs] = payload.split(' ');
  const key = `${venue} ${symbol}`;
  const at = Number(tsMs);
  if (!mark || !bid || !ask || !Number.isFinite(at)) return { key };
  return { key, mark: { venue, symbol, mark, bid, ask, ts: new Date(at).toISOString() } };
}
