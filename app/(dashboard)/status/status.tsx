'use client';
import { useQuery } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import { ErrorState, Loading, PageHeader } from '../../_components/ui';
import { formatDateTime } from '../../_lib/dates';
import { useTRPC } from '../../_lib/trpc';

/** The readiness checks, in the order the server runs them; their words are in messages/<locale>/statusPage.json. */
const CHECKS = ['shutdown', 'database', 'migrations', 'writer', 'jobs', 'ledger'] as const;
type CheckName = (typeof CHECKS)[number];
const isCheck = (name: string | null | undefined): name is CheckName => (CHECKS as readonly string[]).includes(name ?? '');

export function Status() {
  const t = useTranslations('statusPage');
  const trpc = useTRPC();
  // readiness changes on its own: look again every 15 s
  const q = useQuery({ ...trpc.status.readiness.queryOptions(), refetchInterval: 15_000 });
  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      {q.isPending ? <Loading /> : q.isError ? <ErrorState error={q.error} onRetry={() => q.refetch()} /> : (
        <section className="card" aria-labelledby="readiness-title">
          <h2 id="readiness-title" className="sr-only">{t('readiness')}</h2>
          <div className={`alert ${q.data.ready ? 'alert-ok' : 'alert-error'}`} role="status" data-testid="readiness">
            <p><strong>{q.data.ready ? t('ready') : t('notReady', { check: isCheck(q.data.failed) ? t(`checks.${q.data.failed}.label`) : String(q.data.failed) })}</strong></p>
          </div>
          <div className="table-wrap">
          <table className="list" aria-label={t('tableLabel')}>
            <thead><tr><th scope="col">{t('check')}</th><th scope="col">{t('state')}</th><th scope="col">{t('details')}</th></tr></thead>
            <tbody>
              {CHECKS.map((name) => {
                const c = q.data.checks.find((x) => x.name === name);
                return (
                  <tr key={name} data-check={name}>
                    <th scope="row">{t(`checks.${name}.label`)}</th>
                    <td>
                      {!c ? <span className="badge badge-neutral">{t('notRun')}</span>
                        : c.ok ? <span className="badge badge-ok">{t('ok')}</span>
                          : <span className="badge badge-bad">{t('failing')}</span>}
                    </td>
                    <td className="muted">{c?.detail ?? t(`checks.${name}.about`)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          </div>
          {q.data.audited_at ? <p className="muted">{t('audited')}: {formatDateTime(q.data.audited_at)}</p> : null}
        </section>
      )}
    </>
  );
}
