'use client';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ConfirmDialog, CopyValue, ErrorState, FormError, Loading, PageHeader } from '../../_components/ui';
import { useTRPC } from '../../_lib/trpc';

export function Developers() {
  const trpc = useTRPC();
  const creds = useQuery(trpc.dashboard.developers.queryOptions());
  const [showSecret, setShowSecret] = useState(false);
  // fetched only when asked for, and never kept in the cache afterwards
  const secret = useQuery({ ...trpc.dashboard.postbackSecret.queryOptions(), enabled: showSecret, gcTime: 0, staleTime: 0 });
  const [confirming, setConfirming] = useState(false);
  const rotate = useMutation(trpc.dashboard.rotateToken.mutationOptions({ onSettled: () => setConfirming(false) }));
  const [origin, setOrigin] = useState('');
  useEffect(() => setOrigin(window.location.origin), []);

  return (
    <>
      <PageHeader title="Developers" subtitle="Credentials for the REST API and the webhook API." />
      {creds.isPending ? <Loading /> : creds.isError ? <ErrorState error={creds.error} onRetry={() => creds.refetch()} /> : (
        <>
          <section className="card" aria-labelledby="creds-title">
            <h2 id="creds-title">API credentials</h2>
            <div className="kv">
              <div>
                <p className="kv-label">Client code <span className="muted">(public, for POST /auth/token)</span></p>
                <CopyValue value={creds.data.code} label="Client code" />
              </div>
              <div>
                <p className="kv-label">API key <span className="muted">(x-api-key of the webhook API)</span></p>
                <CopyValue value={creds.data.api_key} label="API key" />
              </div>
            </div>
            <h3>Client token</h3>
            <p className="muted">The secret half of the client pair is stored only as a hash and cannot be shown again.
              Rotating it issues a new one and stops the old token and every access token it issued.</p>
            {rotate.isSuccess ? (
              <div className="alert alert-ok" role="status">
                <p><strong>New client token</strong>, shown only now. Store it before leaving this page.</p>
                <CopyValue value={rotate.data.token} label="Client token" />
              </div>
            ) : null}
            <FormError error={rotate.isError ? rotate.error : null} />
            <button type="button" className="button danger" onClick={() => setConfirming(true)}>Rotate client token</button>
            <ConfirmDialog open={confirming} title="Rotate the client token?" confirmLabel="Rotate token" busy={rotate.isPending}
              onCancel={() => setConfirming(false)} onConfirm={() => rotate.mutate()}>
              <p>Integrations using the current token stop working until they are given the new one.</p>
            </ConfirmDialog>
          </section>
          <section className="card" aria-labelledby="postback-title">
            <h2 id="postback-title">Postback signing secret</h2>
            <p className="muted">Postbacks (the <code>postback</code> URL of a withdrawal or charge) are signed with this secret:
              Standard Webhooks headers <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>.</p>
            {!showSecret ? (
              <button type="button" className="button secondary" onClick={() => setShowSecret(true)}>Show postback secret</button>
            ) : secret.isPending ? <Loading label="Decrypting…" /> : secret.isError ? <ErrorState error={secret.error} /> : (
              <>
                <CopyValue value={secret.data.postback_secret} label="Postback secret" />
                <button type="button" className="button small secondary spaced" onClick={() => setShowSecret(false)}>Hide</button>
              </>
            )}
          </section>
          <section className="card" aria-labelledby="quick-title">
            <h2 id="quick-title">Quick start</h2>
            <p className="muted">Exchange the client pair for an access token, then call the API with it. The full reference is at <a href="/docs">/docs</a>.</p>
            <pre className="code-block">{`curl -s ${origin || 'http://127.0.0.1:3000'}/auth/token \\
  -H 'content-type: application/json' \\
  -d '{"code":"${creds.data.code}","token":"<client token>"}'

curl -s ${origin || 'http://127.0.0.1:3000'}/balance -H 'authorization: Bearer <access_token>'`}</pre>
          </section>
        </>
      )}
    </>
  );
}
