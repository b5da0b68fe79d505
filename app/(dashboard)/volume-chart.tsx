'use client';
import { useTranslations } from 'next-intl';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatDay } from '../_lib/dates';
import { formatBRL } from '../_lib/money';

const compact = new Intl.NumberFormat('pt-BR', { notation: 'compact', maximumFractionDigits: 1 });

/** Sales, top-ups and payouts per Brasília day; on a phone fewer ticks so every label stays readable. */
export function VolumeChart({ daily }: { daily: { date: string; sales: number; top_ups: number; payouts: number }[] }) {
  const t = useTranslations('overview');
  const total = daily.reduce((n, d) => n + d.sales + d.top_ups + d.payouts, 0);
  const data = daily.map((d) => ({ day: formatDay(d.date), sales: d.sales, topUps: d.top_ups, payouts: d.payouts }));
  return (
    <figure className="chart" aria-label={t('chartLabel')}>
      <ResponsiveContainer width="100%" height={260}>
        <BarChart data={data} margin={{ top: 8, right: 4, bottom: 0, left: 0 }}>
          <CartesianGrid vertical={false} stroke="#e5e7eb" />
          <XAxis dataKey="day" tickLine={false} axisLine={false} interval="preserveStartEnd" minTickGap={24} fontSize={12} />
          <YAxis tickLine={false} axisLine={false} width={60} fontSize={12} tickFormatter={(v: number) => compact.format(v / 100)} />
          <Tooltip formatter={(v) => formatBRL(Number(v))} cursor={{ fill: 'rgba(15, 118, 110, 0.08)' }} />
          <Legend verticalAlign="top" height={28} iconType="circle" wrapperStyle={{ fontSize: 13 }} />
          <Bar dataKey="sales" name={t('chartSales')} stackId="in" fill="#0f766e" maxBarSize={18} minPointSize={(v) => (v ? 2 : 0)} isAnimationActive={false} />
          <Bar dataKey="topUps" name={t('chartTopUps')} stackId="in" fill="#5eead4" radius={[3, 3, 0, 0]} maxBarSize={18} minPointSize={(v) => (v ? 2 : 0)} isAnimationActive={false} />
          <Bar dataKey="payouts" name={t('chartPayouts')} fill="#f59e0b" radius={[3, 3, 0, 0]} maxBarSize={18} minPointSize={(v) => (v ? 2 : 0)} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
      {total === 0 ? <figcaption className="muted small">{t('chartEmpty')}</figcaption> : null}
    </figure>
  );
}
