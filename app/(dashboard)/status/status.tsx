'use client';
import { useQuery } from '@tanstack/react-query';
import { ErrorState, Loading, PageHeader } from '../../_components/ui';
import { formatDateTime } from '../../_lib/dates';
import { useTRPC } from '../../_lib/trpc';

/** What each readiness check means, in the words of someone running the service (one place to translate). */
const CHECKS: Record<string, { label: string; about: string }> = {
  shutdown: { label: 'Serving', about: 'The instance is not shutting down.' },
  database: { label: 'Database', about: 'The database answers a query.' },
  migrations: { label: 'Migrations', about: 'The database has every migration this version ships.' },
  writer: { label: 'Writer', about: 'The database writer accepts and commits jobs.' },
  jobs: { label: 'Background jobs', about: 'Settlement, expiry and webhook delivery loops are running.' },
  ledger: { label: 'Ledger audit', about: 'Every entry balances, books match their lines, no balance below what is allowed (checked at most once a minute).' },
};

const TEXT = {
  title: 'Status',
  subtitle: 'The readiness checks a load balancer sees at /readyz.',
  ready: 'Ready: every check passes.',
  notReady: (check: string) => `Not ready: ${check} is failing.`,
  ok: 'OK',
  failing: 'Failing',
  notRun: 'Not run (an earlier check failed)',
  audited: 'Ledger last audited',
  check: 'Check',
  state: 'State',
  details: 'Details',
};

export function Status() {
  const trpc = useTRPC();
  // readiness changes on its own: look again every 15 s
  const q = useQuery({ ...trpc.status.readiness.queryOptions(), refetchInterval: 15_000 });
  return (
    <>
      <PageHeader title={TEXT.title} subtitle={TEXT.subtitle} />
      {q.isPending ? <Loading /> : q.isError ? <ErrorState error={q.error} onRetry={() => q.refetch()} /> : (
        <section className="card" aria-labelledby="readiness-title">
          <h2 id="readiness-title" className="sr-only">Readiness</h2>
          <div className={`alert ${q.data.ready ? 'alert-ok' : 'alert-error'}`} role="status" data-testid="readiness">
            <p><strong>{q.data.ready ? TEXT.ready : TEXT.notReady(CHECKS[q.data.failed ?? '']?.label ?? String(q.data.failed))}</strong></p>
          </div>
          <div className="table-wrap">
          <table className="list" aria-label="Readiness checks">
            <thead><tr><th scope="col">{TEXT.check}</th><th scope="col">{TEXT.state}</th><th scope="col">{TEXT.details}</th></tr></thead>
            <tbody>
              {Object.keys(CHECKS).map((name) => {
                const c = q.data.checks.find((x) => x.name === name);
                return (
                  <tr key={name} data-check={name}>
                    <th scope="row">{CHECKS[name].label}</th>
                    <td>
                      {!c ? <span className="badge badge-neutral">{TEXT.notRun}</span>
                        : c.ok ? <span className="badge badge-ok">{TEXT.ok}</span>
                          : <span className="badge badge-bad">{TEXT.failing}</span>}
                    </td>
                    <td className="muted">{c?.detail ?? CHECKS[name].about}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          </div>
          {q.data.audited_at ? <p className="muted">{TEXT.audited}: {formatDateTime(q.data.audited_at)}</p> : null}
        </section>
      )}
    </>
  );
}
