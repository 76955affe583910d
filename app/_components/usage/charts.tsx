'use client';

import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis, type DotItemDotProps } from 'recharts';
import { formatCompact, formatUsd, niceTop } from '@/app/_lib/usage';

// The Usage page's charts (Recharts, SVG). They size to their card (`responsive`), show the full
// bucket name in the tooltip, and never animate: the data refreshes in place. Every chart's
// numbers are also in a table under it (chart-card.tsx).

export interface SeriesSpec {
  key: string;
  label: string;
  color: string;
}

/** One bucket: its axis label, its full name, and a value per series (null: nothing to show). */
export type Point = { label: string; title: string } & Record<string, string | number | null>;

const HEIGHT = 240;
const TICK = { fontSize: 12, fill: '#64748b' };
const GRID = '#e2e8f0';
const MARGIN = { top: 8, right: 8, bottom: 0, left: 0 };
const LEGEND_STYLE = { fontSize: 12, paddingTop: 8 };
const TOOLTIP_STYLE = { fontSize: 12, borderRadius: 8, borderColor: '#e2e8f0' };

type Format = (n: number) => string;

const titleOf = (payload: readonly { payload?: unknown }[]) => (payload[0]?.payload as Point | undefined)?.title ?? '';

/** Legend labels in the text colour (Recharts colours them like their series, too faint for some). */
const legendLabel = (value: unknown) => <span style={{ color: '#475569' }}>{String(value)}</span>;

/** Legend and tooltip items in the order of the series (Recharts sorts them by name otherwise). */
const inOrder = (series: SeriesSpec[]) => (item: { dataKey?: unknown }) => series.findIndex((s) => s.key === item.dataKey);

/** Bars per bucket, the series stacked (their sum is the bar's height). */
export function StackedBars({ data, series, format, axisFormat = format }: { data: Point[]; series: SeriesSpec[]; format: Format; axisFormat?: Format }) {
  return (
    <BarChart responsive data={data} style={{ width: '100%', height: HEIGHT }} margin={MARGIN}>
      <CartesianGrid vertical={false} stroke={GRID} />
      <XAxis dataKey="label" tick={TICK} tickLine={false} axisLine={{ stroke: '#cbd5e1' }} minTickGap={16} />
      <YAxis tick={TICK} tickLine={false} axisLine={false} width={52} allowDecimals={false} tickFormatter={(v: number) => axisFormat(v)} />
      <Tooltip
        cursor={{ fill: '#f1f5f9' }}
        contentStyle={TOOLTIP_STYLE}
        itemSorter={inOrder(series)}
        labelFormatter={(_, payload) => titleOf(payload)}
        formatter={(value) => (typeof value === 'number' ? format(value) : String(value ?? ''))}
      />
      <Legend iconType="square" iconSize={10} wrapperStyle={LEGEND_STYLE} itemSorter={inOrder(series)} formatter={legendLabel} />
      {series.map((s) => (
        <Bar key={s.key} dataKey={s.key} name={s.label} stackId="stack" fill={s.color} isAnimationActive={false} />
      ))}
    </BarChart>
  );
}

const hasValue = (p: Point | undefined, key: string) => p !== undefined && p[key] !== null && p[key] !== undefined;

/** A value with no value on either side: no line reaches it, so it is drawn as a solid marker. */
const isLone = (data: Point[], key: string, i: number) => hasValue(data[i], key) && !hasValue(data[i - 1], key) && !hasValue(data[i + 1], key);

/** The dots of one series: small rings on a line, a larger solid marker for a lone value. */
const dotsOf = (data: Point[], s: SeriesSpec) =>
  function Dot({ key, cx, cy, index }: DotItemDotProps) {
    if (typeof cx !== 'number' || typeof cy !== 'number') return <g key={key} />;
    return isLone(data, s.key, index) ? (
      <circle key={key} cx={cx} cy={cy} r={5} fill={s.color} stroke="#fff" strokeWidth={1.5} data-lone={s.key} />
    ) : (
      <circle key={key} cx={cx} cy={cy} r={2.5} fill="#fff" stroke={s.color} strokeWidth={1.5} />
    );
  };

const TICKS = 5;
/** The value axis's top: room above the highest value, so a marker there is never cut by the plot's edge. */
const top = (max: number) => niceTop(max, TICKS);

/**
 * A line per series over the buckets; a bucket without a value leaves a gap. The first and last
 * buckets sit inside the plot (padding), so their markers are drawn whole.
 */
export function Lines({ data, series, format, axisFormat = format }: { data: Point[]; series: SeriesSpec[]; format: Format; axisFormat?: Format }) {
  return (
    <LineChart responsive data={data} style={{ width: '100%', height: HEIGHT }} margin={MARGIN}>
      <CartesianGrid vertical={false} stroke={GRID} />
      <XAxis dataKey="label" tick={TICK} tickLine={false} axisLine={{ stroke: '#cbd5e1' }} minTickGap={16} padding={{ left: 12, right: 12 }} />
      <YAxis tick={TICK} tickLine={false} axisLine={false} width={52} domain={[0, top]} tickCount={TICKS} tickFormatter={(v: number) => axisFormat(v)} />
      <Tooltip
        contentStyle={TOOLTIP_STYLE}
        itemSorter={inOrder(series)}
        labelFormatter={(_, payload) => titleOf(payload)}
        formatter={(value) => (typeof value === 'number' ? format(value) : '—')}
      />
      <Legend iconType="plainline" iconSize={14} wrapperStyle={LEGEND_STYLE} itemSorter={inOrder(series)} formatter={legendLabel} />
      {series.map((s) => (
        <Line key={s.key} dataKey={s.key} name={s.label} stroke={s.color} strokeWidth={2} dot={dotsOf(data, s)} activeDot={{ r: 5 }} type="monotone" isAnimationActive={false} />
      ))}
    </LineChart>
  );
}

export interface CostBar {
  model: string;
  /** Null when unknown: no bar, and the label says so. */
  cost: number | null;
  costLabel: string;
}

const MAX_MODEL_CHARS = 22;
const shortModel = (m: string) => (m.length > MAX_MODEL_CHARS ? `${m.slice(0, MAX_MODEL_CHARS - 1)}…` : m);

/**
 * One horizontal bar per model, its estimated cost written at the right end of its row (an axis
 * of its own, so "unknown" — a model without a price, drawn without a bar — and $0.00 show too).
 */
export function CostBars({ data, color }: { data: CostBar[]; color: string }) {
  const longest = Math.max(...data.map((d) => shortModel(d.model).length), 4);
  const widest = Math.max(...data.map((d) => d.costLabel.length), 4);
  const top = Math.max(0, ...data.map((d) => d.cost ?? 0));
  return (
    <BarChart responsive layout="vertical" data={data} style={{ width: '100%', height: Math.max(120, 36 * data.length + 32) }} margin={{ top: 4, right: 4, bottom: 0, left: 0 }}>
      <CartesianGrid horizontal={false} stroke={GRID} />
      <XAxis type="number" domain={[0, top > 0 ? 'auto' : 1]} tick={TICK} tickLine={false} axisLine={{ stroke: '#cbd5e1' }} tickFormatter={(v: number) => (v === 0 ? '$0' : formatUsd(v))} />
      <YAxis yAxisId="model" type="category" dataKey="model" tick={TICK} tickLine={false} axisLine={false} width={Math.min(170, 7 * longest + 12)} tickFormatter={shortModel} />
      <YAxis yAxisId="cost" orientation="right" type="category" dataKey="costLabel" tick={{ ...TICK, fill: '#334155' }} tickLine={false} axisLine={false} width={7.5 * widest + 8} />
      <Tooltip cursor={{ fill: '#f1f5f9' }} contentStyle={TOOLTIP_STYLE} formatter={(_, __, item) => (item.payload as CostBar).costLabel} />
      <Bar yAxisId="model" dataKey="cost" name="Estimated cost" fill={color} isAnimationActive={false} barSize={18} />
    </BarChart>
  );
}

/** A limit drawn across a chart: a dashed line at `value`, labelled. */
export interface LimitLine {
  key: string;
  label: string;
  value: number;
}

const LIMIT_COLOR = '#dc2626';
/** An axis tick in USD: "$0", "$0.05", "$12.50", "$1.2K". */
const usdTick = (v: number) => (v === 0 ? '$0' : v >= 1000 ? `$${formatCompact(v)}` : formatUsd(v));

/**
 * The estimated cost of each bucket (all models together) as bars, and `limits` as dashed lines
 * across them (the value axis reaches the highest, so each is in view). A bucket whose cost is
 * unknown (a live model without a price) has no bar.
 */
export function CostPerBucket({ data, color, limits }: { data: Point[]; color: string; limits: LimitLine[] }) {
  const highest = Math.max(0, ...data.map((p) => (typeof p.cost === 'number' ? p.cost : 0)), ...limits.map((l) => l.value));
  return (
    <BarChart responsive data={data} style={{ width: '100%', height: HEIGHT }} margin={{ ...MARGIN, top: 12 }}>
      <CartesianGrid vertical={false} stroke={GRID} />
      <XAxis dataKey="label" tick={TICK} tickLine={false} axisLine={{ stroke: '#cbd5e1' }} minTickGap={16} />
      <YAxis tick={TICK} tickLine={false} axisLine={false} width={60} domain={[0, top(highest)]} tickCount={TICKS} tickFormatter={usdTick} />
      <Tooltip
        cursor={{ fill: '#f1f5f9' }}
        contentStyle={TOOLTIP_STYLE}
        labelFormatter={(_, payload) => titleOf(payload)}
        formatter={(value) => formatUsd(typeof value === 'number' ? value : null)}
      />
      <Bar dataKey="cost" name="Estimated cost" fill={color} isAnimationActive={false} />
      {limits.map((l) => (
        <ReferenceLine
          key={l.key}
          y={l.value}
          stroke={LIMIT_COLOR}
          strokeDasharray="6 4"
          strokeWidth={1.5}
          ifOverflow="extendDomain"
          label={{ value: l.label, position: 'insideBottomLeft', fill: '#b91c1c', fontSize: 11 }}
        />
      ))}
    </BarChart>
  );
}
