'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import { QRCodeSVG } from 'qrcode.react';
import { useState } from 'react';
import { amountToCents } from '@/contract/bcb/common';
import { PERCENT_MODES } from '@/contract/bcb/cobv';
import { formatBRL } from '../../../../_lib/money';
import { PixShare } from '../../../../_components/pix-share';
import { NotFoundCard } from '../../../../_components/not-found-card';
import { BackLink, CopyButton, DetailList, ErrorState, FormError, Loading, Money, PageHeader, StatusBadge } from '../../../../_components/ui';
import { apiErrorCode } from '../../../../_lib/api-errors';
import { formatDateTime, formatDay } from '../../../../_lib/dates';
import { formatDocument, formatPixKey } from '../../../../_lib/documents';
import { useTRPC } from '../../../../_lib/trpc';

type Component = 'multa' | 'juros' | 'desconto' | 'abatimento';
const COMPONENTS: Component[] = ['multa', 'juros', 'desconto', 'abatimento'];
const cents = (v: string | undefined) => (v === undefined ? undefined : amountToCents(v));

/** One API Pix charge: its QR code and copia-e-cola, its terms, the amount due today, the Pix that paid it. */
export function ChargeDetail({ kind, txid }: { kind: 'cob' | 'cobv'; txid: string }) {
  const t = useTranslations('pixCharges');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const cobv = useQuery({ ...trpc.pixCharges.getCobv.queryOptions({ txid }), enabled: kind === 'cobv' });
  const cob = useQuery({ ...trpc.pixCharges.getCob.queryOptions({ txid }), enabled: kind === 'cob' });
  const charge = kind === 'cobv' ? cobv : cob;
  const due = useQuery({ ...trpc.pixCharges.amountDue.queryOptions({ txid }), enabled: kind === 'cobv' && charge.data?.status === 'ATIVA' });
  // the Pix that paid it: received after the charge was created (the list always takes a period)
  const [until] = useState(() => new Date(Date.now() + 3_600_000).toISOString());
  const since = (charge.data?.calendario as { criacao?: string } | undefined)?.criacao ?? until;
  const received = useQuery({ ...trpc.pixReceived.list.queryOptions({ inicio: since, fim: until, txid }), enabled: charge.data?.status === 'CONCLUIDA' });
  const refresh = () => queryClient.invalidateQueries();
  const pay = useMutation(trpc.pixReceived.sandboxPay.mutationOptions({ onSuccess: refresh }));

  const back = <BackLink href={`/pix-charges?kind=${kind}`}>{t('detail.back')}</BackLink>;
  if (charge.isPending) return <>{back}<Loading /></>;
  if (charge.isError) {
    const code = apiErrorCode(charge.error);
    if (code === 'NOT_FOUND') return <NotFoundCard title={t('detail.notFound')} back={`/pix-charges?kind=${kind}`} backLabel={t('detail.backToList')} />;
    return <>{back}<ErrorState error={charge.error} onRetry={() => charge.refetch()} /></>;
  }
  const c = charge.data;
  const cal = c.calendario as { criacao: string; expiracao?: number; dataDeVencimento?: string; validadeAposVencimento?: number };
  const devedor = c.devedor as { nome?: string; cpf?: string; cnpj?: string } | undefined;
  const valor = c.valor as Record<string, unknown> & { original?: string };
  const brcode = (c as { pixCopiaECola?: string }).pixCopiaECola;
  const rules = COMPONENTS.filter((k) => valor[k] !== undefined);

  return (
    <>
      {back}
      <PageHeader title={kind === 'cobv' ? t('detail.titleCobv') : t('detail.titleCob')}
        subtitle={<span className="mono break-anywhere">{c.txid}</span>}
        actions={<StatusBadge status={c.status} kind="pixCharge" />} />
      <div className="grid-2-cards">
        <section className="card" aria-labelledby="terms-title">
          <h2 id="terms-title">{t('detail.original')}: <Money cents={cents(valor.original)} /></h2>
          <DetailList rows={[
            [t('detail.chave'), <span key="k" className="mono break-anywhere">{formatPixKey('', c.chave)}</span>],
            [t('detail.revisao'), String(c.revisao)],
            [t('detail.criacao'), formatDateTime(cal.criacao)],
            ...(cal.dataDeVencimento ? [[t('detail.vencimento'), formatDay(cal.dataDeVencimento)] as [string, string]] : []),
            ...(cal.expiracao !== undefined ? [[t('detail.expiracao'), formatDateTime(new Date(Date.parse(cal.criacao) + cal.expiracao * 1000).toISOString())] as [string, string]] : []),
            ...(devedor ? [[t('detail.devedor'), `${devedor.nome ?? ''} ${formatDocument(devedor.cpf ?? devedor.cnpj ?? '')}`.trim()] as [string, string]] : []),
            ...(c.solicitacaoPagador ? [[t('detail.solicitacao'), c.solicitacaoPagador] as [string, string]] : []),
          ]} />
          {kind === 'cobv' ? (
            <>
              <h3>{t('detail.rules')}</h3>
              {rules.length === 0 ? <p className="muted">{t('detail.noRules')}</p> : (
                <ul className="plain-list" data-testid="cobv-rules">
                  {rules.map((k) => {
                    const r = valor[k] as { modalidade: number; valorPerc?: string; descontoDataFixa?: { data: string; valorPerc: string }[] };
                    const mode = t(`form.${k}Mode.${r.modalidade}` as 'form.multaMode.1');
                    // a percentage mode's figure is a percentage, the others an amount in reais
                    const percent = (PERCENT_MODES[k] as readonly number[]).includes(r.modalidade);
                    const figure = (v: string) => (percent ? `${v.replace('.', ',')} %` : formatBRL(amountToCents(v)));
                    const detail = r.descontoDataFixa
                      ? r.descontoDataFixa.map((d) => `${figure(d.valorPerc)} ${t('form.descontoData').toLowerCase()} ${formatDay(d.data)}`).join('; ')
                      : figure(r.valorPerc ?? '0.00');
                    return <li key={k}><strong>{t(`detail.component.${k}`)}</strong>: {mode} — {detail}</li>;
                  })}
                </ul>
              )}
            </>
          ) : null}
        </section>
        {brcode && c.status === 'ATIVA' ? (
          <section className="card" aria-labelledby="qr-title">
            <h2 id="qr-title">{t('detail.qrTitle')}</h2>
            <div className="qr-box"><QRCodeSVG value={brcode} size={200} marginSize={2} role="img" aria-label={t('detail.qrLabel', { txid: c.txid })} /></div>
            <p className="muted small">{t('detail.copiaECola')}</p>
            <p className="mono break-anywhere small" data-testid="pix-copia-e-cola">{brcode}</p>
            <div className="button-row"><CopyButton text={brcode} label={t('detail.copy')} /></div>
            <PixShare brcode={brcode} title={c.txid} fileName={`pix-${c.txid}.png`} />
          </section>
        ) : null}
      </div>
      {kind === 'cobv' && c.status === 'ATIVA' ? (
        <section className="card" aria-labelledby="due-title" data-testid="amount-due">
          {due.isPending ? <Loading /> : due.isError ? <ErrorState error={due.error} onRetry={() => due.refetch()} /> : (
            <>
              <h2 id="due-title">{t('detail.dueTodayTitle', { day: formatDay(due.data.data) })}</h2>
              {due.data.valor === null ? <p>{t('detail.notPayableToday', { reason: due.data.motivo ?? '' })}</p> : (
                <Components comp={due.data.componentesValor ?? {}} total={due.data.valor} />
              )}
            </>
          )}
        </section>
      ) : null}
      {c.status === 'ATIVA' ? (
        <div className="button-row">
          <button type="button" className="button secondary" disabled={pay.isPending} onClick={() => pay.mutate({ txid: c.txid })}>{pay.isPending ? t('detail.paying') : t('detail.sandboxPay')}</button>
          {pay.isError ? <FormError error={pay.error} /> : null}
        </div>
      ) : null}
      {c.status === 'CONCLUIDA' ? (
        <section className="card" aria-labelledby="pix-title">
          <h2 id="pix-title">{t('detail.pixTitle')}</h2>
          {received.isPending ? <Loading /> : received.isError ? <ErrorState error={received.error} onRetry={() => received.refetch()} /> : received.data.pix.length === 0 ? <p className="muted">{t('detail.noPix')}</p> : received.data.pix.map((p) => (
            <div key={p.endToEndId} data-testid="pix-received">
              <DetailList rows={[
                [t('detail.e2e'), <span key="e" className="mono break-anywhere">{p.endToEndId}</span>],
                [t('detail.horario'), formatDateTime(p.horario)],
                [t('detail.valorPago'), <Money key="v" cents={amountToCents(p.valor)} />],
                ...(p.pagador ? [[t('detail.pagador'), `${p.pagador.nome ?? ''} ${formatDocument(p.pagador.cpf ?? p.pagador.cnpj ?? '')}`.trim()] as [string, string]] : []),
              ]} />
              {p.componentesValor ? <Components comp={p.componentesValor} total={p.valor} /> : null}
              {p.devolucoes?.length ? (
                <>
                  <h3>{t('detail.devolucoes')}</h3>
                  <ul className="plain-list">
                    {p.devolucoes.map((d) => <li key={d.id}><Money cents={amountToCents(d.valor)} /> <StatusBadge status={d.status} kind="devolucao" /></li>)}
                  </ul>
                </>
              ) : null}
            </div>
          ))}
        </section>
      ) : null}
    </>
  );
}

/** componentesValor as a small table: original, then each charge or deduction, then the total. */
function Components({ comp, total }: { comp: Partial<Record<'original' | Component, { valor: string }>>; total: string }) {
  const t = useTranslations('pixCharges');
  const rows = (['original', ...COMPONENTS] as const).filter((k) => comp[k] !== undefined);
  return (
    <table className="list" aria-label={t('detail.rules')}>
      <tbody>
        {rows.map((k) => (
          <tr key={k} data-component={k}>
            <th scope="row">{t(`detail.component.${k}`)}</th>
            <td className="num"><Money cents={amountToCents(comp[k]!.valor)} sign={k === 'desconto' || k === 'abatimento' ? 'out' : undefined} /></td>
          </tr>
        ))}
        <tr data-component="final"><th scope="row">{t('detail.component.final')}</th><td className="num"><strong><Money cents={amountToCents(total)} /></strong></td></tr>
      </tbody>
    </table>
  );
}
