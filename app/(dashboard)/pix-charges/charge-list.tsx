'use client';
import { useQuery } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import Link from 'next/link';
import { useState } from 'react';
import { amountToCents } from '@/contract/bcb/common';
import { EmptyState, ErrorState, Loading, Money, PageHeader, Pager, StatusBadge } from '../../_components/ui';
import { formatDateTime, formatDay } from '../../_lib/dates';
import { formatDocument } from '../../_lib/documents';
import { useTRPC } from '../../_lib/trpc';

const PAGE_SIZE = 20;
const PERIOD_DAYS = 90;

/** The period the list covers: the API Pix's lists always take one (inicio, fim); fixed when the page opens. */
function lastDays(days: number) {
  const fim = new Date();
  return { inicio: new Date(fim.getTime() - days * 86_400_000).toISOString(), fim: new Date(fim.getTime() + 60_000).toISOString() };
}

/** The account's API Pix charges, newest first: with a due date (cobv) or immediate (cob). */
export function ChargeList({ kind, page }: { kind: 'cob' | 'cobv'; page: number }) {
  const t = useTranslations('pixCharges');
  const trpc = useTRPC();
  const [period] = useState(() => lastDays(PERIOD_DAYS));
  const query = { ...period, paginacao: { paginaAtual: page, itensPorPagina: PAGE_SIZE } };
  const cobv = useQuery({ ...trpc.pixCharges.listCobvs.queryOptions(query), enabled: kind === 'cobv' });
  const cob = useQuery({ ...trpc.pixCharges.listCobs.queryOptions(query), enabled: kind === 'cob' });
  const list = kind === 'cobv' ? cobv : cob;
  const href = (k: 'cob' | 'cobv', p = 0) => `/pix-charges?kind=${k}${p ? `&page=${p}` : ''}`;

  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')}
        actions={<Link className="button primary" href="/pix-charges/new">{t('newCobv')}</Link>} />
      <nav className="tabs" aria-label={t('tabs.label')}>
        {(['cobv', 'cob'] as const).map((k) => (
          <Link key={k} href={href(k)} className="tab" aria-current={k === kind ? 'page' : undefined}>{t(`tabs.${k}`)}</Link>
        ))}
      </nav>
      <section className="card" aria-labelledby="charges-title">
        <h2 id="charges-title" className="sr-only">{t(`tabs.${kind}`)}</h2>
        <p className="muted small">{t('period')}</p>
        {list.isPending ? <Loading /> : list.isError ? <ErrorState error={list.error} onRetry={() => list.refetch()} /> : list.data.cobs.length === 0 ? (
          <EmptyState title={t('empty')}>{t('emptyText')}</EmptyState>
        ) : (
          <>
            <div className="table-wrap">
              <table className="list" aria-label={t('tableLabel')}>
                <thead><tr>
                  <th scope="col">{t('col.txid')}</th>
                  <th scope="col">{t('col.devedor')}</th>
                  <th scope="col" className="num">{t('col.valor')}</th>
                  <th scope="col">{kind === 'cobv' ? t('col.vencimento') : t('col.criacao')}</th>
                  <th scope="col">{t('col.status')}</th>
                </tr></thead>
                <tbody>
                  {list.data.cobs.map((c) => {
                    const cal = c.calendario as { criacao: string; dataDeVencimento?: string };
                    const devedor = c.devedor as { nome?: string; cpf?: string; cnpj?: string } | undefined;
                    return (
                      <tr key={c.txid} data-testid="pix-charge" data-status={c.status}>
                        <td data-label={t('col.txid')} data-phone="title">
                          <Link href={`/pix-charges/${kind}/${c.txid}`} className="mono break-anywhere">{c.txid}</Link>
                        </td>
                        <td data-label={t('col.devedor')} data-phone="meta">
                          {devedor ? <>{devedor.nome}<span className="muted small"> {formatDocument(devedor.cpf ?? devedor.cnpj ?? '')}</span></> : '—'}
                        </td>
                        <td data-label={t('col.valor')} data-phone="amount" className="num"><Money cents={amountToCents(c.valor.original ?? '0.00')} /></td>
                        <td data-label={kind === 'cobv' ? t('col.vencimento') : t('col.criacao')} data-phone="meta" className="nowrap">
                          {cal.dataDeVencimento ? formatDay(cal.dataDeVencimento) : formatDateTime(cal.criacao)}
                        </td>
                        <td data-label={t('col.status')} data-phone="meta"><StatusBadge status={c.status} kind="pixCharge" /></td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
            <Pager hasPrev={page > 0} hasNext={page + 1 < list.data.parametros.paginacao.quantidadeDePaginas}
              onPrev={() => window.location.assign(href(kind, page - 1))} onNext={() => window.location.assign(href(kind, page + 1))} />
          </>
        )}
      </section>
    </>
  );
}
