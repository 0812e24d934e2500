/**
 * Candles of one pair (docs/api.md §2.9, §6.1): seeded from `GET /api/v1/market/candles/{venue}/{symbol}`
 * (1m, the last 240 bars), then kept current by `Candle` frames of `/ws/market`
 * (`candle:<venue>:<symbol>:1m`; a bar with the same open time replaces the forming one). The API's
 * series is continuous and ends at the current mark (recorded history rebased onto the replay clock,
 * then live bars), so the chart draws one series with no gap and no cliff. Drawn with TradingView's
 * lightweight-charts in the theme's colours. Prices become JS numbers only here, at the canvas: nothing
 * drawn is sent back. The canvas element states what it draws: `data-bars`, `data-first-time` and
 * `data-last-time` (the first and newest bar's open, UTC seconds) and `data-last-close` (the newest
 * bar's close as the API sent it).
 */
import { useEffect, useRef, useState } from 'react';
import {
  CandlestickSeries,
  ColorType,
  createChart,
  type CandlestickData,
  type IChartApi,
  type ISeriesApi,
  type UTCTimestamp,
} from 'lightweight-charts';
import type { Bar, Palette } from '../api';
import { call } from '../api';
import { keepChannel } from '../sockets';

const point = (b: Bar): CandlestickData<UTCTimestamp> => ({
  time: Math.floor(Date.parse(b.openTime) / 1000) as UTCTimestamp,
  open: Number(b.open),
  high: Number(b.high),
  low: Number(b.low),
  close: Number(b.close),
});

export function Chart(props: { venue: string; symbol: string; palette: Palette; token?: string }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<IChartApi | null>(null);
  const series = useRef<ISeriesApi<'Candlestick'> | null>(null);
  const [bars, setBars] = useState(0);
  const [span, setSpan] = useState<{ first: number; last: number; close: string } | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const c = createChart(box.current!, { autoSize: true, timeScale: { timeVisible: true, secondsVisible: false } });
    chart.current = c;
    series.current = c.addSeries(CandlestickSeries, {});
    return () => {
      c.remove();
      chart.current = series.current = null;
    };
  }, []);

  useEffect(() => {
    const p = props.palette;
    chart.current?.applyOptions({
      layout: { background: { type: ColorType.Solid, color: p.surface }, textColor: p.text },
      grid: { vertLines: { color: p.border }, horzLines: { color: p.border } },
    });
    series.current?.applyOptions({
      upColor: p.positive,
      downColor: p.negative,
      borderUpColor: p.positive,
      borderDownColor: p.negative,
      wickUpColor: p.positive,
      wickDownColor: p.negative,
    });
  }, [props.palette]);

  useEffect(() => {
    let live = true;
    let last = 0;
    setError(null);
    call<{ bars: Bar[] }>(
      'GET',
      `/api/v1/market/candles/${props.venue}/${encodeURIComponent(props.symbol)}?interval=1m&limit=240`,
      { token: props.token },
    )
      .then(({ bars: seed }) => {
        if (!live) return;
        const points = seed.map(point);
        series.current?.setData(points);
        last = points.at(-1)?.time ?? 0;
        setBars(points.length);
        setSpan(seed.length ? { first: points[0].time, last, close: seed.at(-1)!.close } : null);
        chart.current?.timeScale().fitContent();
      })
      .catch((err: Error) => live && setError(err.message));
    const topic = `candle:${props.venue}:${props.symbol}:1m`;
    const channel = keepChannel('/ws/market', {
      onOpen: (send) => send({ type: 'Subscribe', topics: [topic] }),
      onFrame: (f) => {
        if (f.type !== 'Candle' || !f.bar) return;
        const p = point(f.bar as Bar);
        if (p.time < last) return; // lightweight-charts only updates the newest bar
        series.current?.update(p);
        if (p.time > last) setBars((n) => n + 1);
        last = p.time;
        const close = (f.bar as Bar).close;
        setSpan((s) => ({ first: s?.first ?? p.time, last: p.time, close }));
      },
    });
    return () => {
      live = false;
      channel.close();
    };
  }, [props.venue, props.symbol, props.token]);

  return (
    <section className="panel chart" aria-label="Candles">
      <h3>
        {props.symbol} · 1m {error && <span className="error">{error}</span>}
      </h3>
      <div
        ref={box}
        className="chart-canvas"
        data-testid="chart"
        data-bars={bars}
        data-first-time={span?.first}
        data-last-time={span?.last}
        data-last-close={span?.close}
      />
    </section>
  );
}
