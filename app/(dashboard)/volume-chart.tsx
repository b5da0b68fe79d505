'use client';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatDay } from '../_lib/dates';
import { formatBRL } from '../_lib/money';

const compact = new Intl.NumberFormat('pt-BR', { notation: 'compact', maximumFractionDigits: 1 });

export function VolumeChart({ daily }: { daily: { date: string; money_in: number; money_out: number }[] }) {
  const total = daily.reduce((n, d) => n + d.money_in + d.money_out, 0);
  const data = daily.map((d) => ({ day: formatDay(d.date), in: d.money_in, out: d.money_out }));
  return (
    <figure className="chart" aria-label="Money in and out per day over the last 30 days, in reais">
      <ResponsiveContainer width="100%" height={260}>
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid vertical={false} stroke="#e5e7eb" />
          <XAxis dataKey="day" tickLine={false} axisLine={false} interval="preserveStartEnd" minTickGap={16} fontSize={12} />
          <YAxis tickLine={false} axisLine={false} width={52} fontSize={12} tickFormatter={(v: number) => compact.format(v / 100)} />
          <Tooltip formatter={(v) => formatBRL(Number(v))} cursor={{ fill: 'rgba(15, 118, 110, 0.08)' }} />
          <Legend verticalAlign="top" height={28} iconType="circle" />
          <Bar dataKey="in" name="Money in" fill="#0f766e" radius={[3, 3, 0, 0]} maxBarSize={18} minPointSize={(v) => (v ? 2 : 0)} isAnimationActive={false} />
          <Bar dataKey="out" name="Money out" fill="#f59e0b" radius={[3, 3, 0, 0]} maxBarSize={18} minPointSize={(v) => (v ? 2 : 0)} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
      {total === 0 ? <figcaption className="muted small">No money moved in the last 30 days.</figcaption> : null}
    </figure>
  );
}
