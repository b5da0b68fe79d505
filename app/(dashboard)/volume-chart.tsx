'use client';
import { useTranslations } from 'next-intl';
import { useSyncExternalStore } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatDay } from '../_lib/dates';
import { formatBRL } from '../_lib/money';

const compact = new Intl.NumberFormat('pt-BR', { notation: 'compact', maximumFractionDigits: 1 });
const PHONE = '(max-width: 640px)';
/** Days shown: a phone gets the last 14, so each bar stays wide enough to see and touch. */
const DAYS = { phone: 14, wide: 30 } as const;

/** Whether the screen is phone-sized; on the server (and before hydration) it is not. */
function usePhone(): boolean {
  return useSyncExternalStore(
    (change) => { const m = window.matchMedia(PHONE); m.addEventListener('change', change); return () => m.removeEventListener('change', change); },
    () => window.matchMedia(PHONE).matches,
    () => false,
  );
}

/**
 * Sales, top-ups and payouts per Brasília day, as a card with its heading (which says how many days).
 * The legend keeps the order of the Overview's cards (sales, top-ups, payouts), in dark text; on a
 * phone the last 14 days, with a tick every few days so every label stays readable.
 */
export function VolumeChart({ daily }: { daily: { date: string; sales: number; top_ups: number; payouts: number }[] }) {
  const t = useTranslations('overview');
  const phone = usePhone();
  const days = phone ? DAYS.phone : DAYS.wide;
  const shown = daily.slice(-days);
  const total = shown.reduce((n, d) => n + d.sales + d.top_ups + d.payouts, 0);
  const data = shown.map((d) => ({ day: formatDay(d.date), sales: d.sales, topUps: d.top_ups, payouts: d.payouts }));
  const order = [t('chartSales'), t('chartTopUps'), t('chartPayouts')];
  return (
    <section className="card" aria-labelledby="volume-title">
      <h2 id="volume-title">{t('chart', { days })} <span className="muted small">{t('chartUnit')}</span></h2>
      <figure className="chart" aria-label={t('chartLabel', { days })} data-days={shown.length}>
        <ResponsiveContainer width="100%" height={phone ? 220 : 260}>
          <BarChart data={data} margin={{ top: 8, right: 4, bottom: 0, left: 0 }} barCategoryGap={phone ? '8%' : '20%'} barGap={phone ? 1 : 4}>
            <CartesianGrid vertical={false} stroke="#e5e7eb" />
            <XAxis dataKey="day" tickLine={false} axisLine={false} interval={phone ? 2 : 'preserveStartEnd'} minTickGap={phone ? 4 : 24} fontSize={12} />
            <YAxis tickLine={false} axisLine={false} width={phone ? 44 : 60} fontSize={12} tickFormatter={(v: number) => compact.format(v / 100)} />
            <Tooltip formatter={(v) => formatBRL(Number(v))} cursor={{ fill: 'rgba(15, 118, 110, 0.08)' }} />
            <Legend verticalAlign="top" height={28} iconType="circle" wrapperStyle={{ fontSize: 13 }}
              itemSorter={(item) => order.indexOf(String(item.value))}
              formatter={(value) => <span className="chart-legend-text">{value}</span>} />
            <Bar dataKey="sales" name={t('chartSales')} stackId="in" fill="#0f766e" maxBarSize={18} minPointSize={(v) => (v ? 2 : 0)} isAnimationActive={false} />
            <Bar dataKey="topUps" name={t('chartTopUps')} stackId="in" fill="#5eead4" radius={[3, 3, 0, 0]} maxBarSize={18} minPointSize={(v) => (v ? 2 : 0)} isAnimationActive={false} />
            <Bar dataKey="payouts" name={t('chartPayouts')} fill="#f59e0b" radius={[3, 3, 0, 0]} maxBarSize={18} minPointSize={(v) => (v ? 2 : 0)} isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
        {total === 0 ? <figcaption className="muted small">{t('chartEmpty', { days })}</figcaption> : null}
      </figure>
    </section>
  );
}
