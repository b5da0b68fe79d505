'use client';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import { useEffect, useState } from 'react';
import { ConfirmDialog, CopyValue, ErrorState, FormError, Loading, PageHeader } from '../../_components/ui';
import { useTRPC } from '../../_lib/trpc';

export function Developers() {
  const t = useTranslations('developers');
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
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      {creds.isPending ? <Loading /> : creds.isError ? <ErrorState error={creds.error} onRetry={() => creds.refetch()} /> : (
        <>
          <section className="card" aria-labelledby="creds-title">
            <h2 id="creds-title">{t('credentials')}</h2>
            <div className="kv">
              <div>
                <p className="kv-label">{t('clientCode')} <span className="muted">{t('clientCodeNote')}</span></p>
                <CopyValue value={creds.data.code} label={t('clientCode')} />
              </div>
              <div>
                <p className="kv-label">{t('apiKey')} <span className="muted">{t('apiKeyNote')}</span></p>
                <CopyValue value={creds.data.api_key} label={t('apiKey')} />
              </div>
            </div>
            <h3>{t('clientToken')}</h3>
            <p className="muted">{t('clientTokenText')}</p>
            {rotate.isSuccess ? (
              <div className="alert alert-ok" role="status">
                <p><strong>{t('newToken')}</strong>{t('newTokenText')}</p>
                <CopyValue value={rotate.data.token} label={t('tokenLabel')} />
              </div>
            ) : null}
            <FormError error={rotate.isError ? rotate.error : null} />
            <button type="button" className="button danger" onClick={() => setConfirming(true)}>{t('rotate')}</button>
            <ConfirmDialog open={confirming} title={t('rotateTitle')} confirmLabel={t('rotateConfirm')} busy={rotate.isPending}
              onCancel={() => setConfirming(false)} onConfirm={() => rotate.mutate()}>
              <p>{t('rotateText')}</p>
            </ConfirmDialog>
          </section>
          <section className="card" aria-labelledby="postback-title">
            <h2 id="postback-title">{t('postbackTitle')}</h2>
            <p className="muted">{t('postbackText')}</p>
            {!showSecret ? (
              <button type="button" className="button secondary" onClick={() => setShowSecret(true)}>{t('showSecret')}</button>
            ) : secret.isPending ? <Loading label={t('decrypting')} /> : secret.isError ? <ErrorState error={secret.error} /> : (
              <>
                <CopyValue value={secret.data.postback_secret} label={t('postbackSecret')} />
                <button type="button" className="button small secondary spaced" onClick={() => setShowSecret(false)}>{t('hide')}</button>
              </>
            )}
          </section>
          <section className="card" aria-labelledby="quick-title">
            <h2 id="quick-title">{t('quickStart')}</h2>
            <p className="muted">{t('quickStartText')}</p>
            <pre className="code-block">{`curl -s ${origin || 'http://127.0.0.1:3000'}/auth/token \\
  -H 'content-type: application/json' \\
  -d '{"code":"${creds.data.code}","token":"${t('clientTokenPlaceholder')}"}'

curl -s ${origin || 'http://127.0.0.1:3000'}/balance -H 'authorization: Bearer <access_token>'`}</pre>
          </section>
        </>
      )}
    </>
  );
}
