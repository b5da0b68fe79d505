'use client';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import Link from 'next/link';
import { useEffect, useState } from 'react';
import { CopyValue, ErrorState, Loading, PageHeader } from '../../_components/ui';
import { PasswordDialog } from '../../_components/password-dialog';
import { useTRPC } from '../../_lib/trpc';

export function Developers() {
  const t = useTranslations('developers');
  const trpc = useTRPC();
  const creds = useQuery(trpc.dashboard.developers.queryOptions());
  // the postback secret and a new client token are answered only after the password (a mutation each,
  // never cached): the dialog asks for it, and closes once the answer is in
  const [asking, setAsking] = useState<'secret' | 'rotate' | 'pix' | null>(null);
  const secret = useMutation(trpc.dashboard.postbackSecret.mutationOptions({ onSuccess: () => setAsking(null) }));
  const rotate = useMutation(trpc.dashboard.rotateToken.mutationOptions({ onSuccess: () => setAsking(null) }));
  const pix = useQuery(trpc.dashboard.pixApiCredentials.queryOptions());
  const rotatePix = useMutation(trpc.dashboard.rotatePixSecret.mutationOptions({ onSuccess: () => { setAsking(null); void pix.refetch(); } }));
  const ask = (what: 'secret' | 'rotate' | 'pix') => { secret.reset(); rotate.reset(); rotatePix.reset(); setAsking(what); };
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
            <button type="button" className="button danger" onClick={() => ask('rotate')}>{t('rotate')}</button>
            <PasswordDialog open={asking === 'rotate'} title={t('rotateTitle')} confirmLabel={t('rotateConfirm')} busy={rotate.isPending}
              error={rotate.isError ? rotate.error : null} onCancel={() => setAsking(null)} onConfirm={(password) => rotate.mutate({ password })}>
              <p>{t('rotateText')}</p>
            </PasswordDialog>
          </section>
          <section className="card" aria-labelledby="postback-title">
            <h2 id="postback-title">{t('postbackTitle')}</h2>
            <p className="muted">{t('postbackText')}</p>
            {!secret.isSuccess ? (
              <button type="button" className="button secondary" onClick={() => ask('secret')}>{t('showSecret')}</button>
            ) : (
              <>
                <CopyValue value={secret.data.postback_secret} label={t('postbackSecret')} />
                <button type="button" className="button small secondary spaced" onClick={() => secret.reset()}>{t('hide')}</button>
              </>
            )}
            <PasswordDialog open={asking === 'secret'} title={t('showSecretTitle')} confirmLabel={t('showSecretConfirm')} busy={secret.isPending}
              error={secret.isError ? secret.error : null} onCancel={() => setAsking(null)} onConfirm={(password) => secret.mutate({ password })}>
              <p>{t('showSecretText')}</p>
            </PasswordDialog>
          </section>
          <section className="card" aria-labelledby="pix-api-title">
            <h2 id="pix-api-title">{t('pixApiTitle')}</h2>
            <p className="muted">{t.rich('pixApiText', { code: (chunks) => <code>{chunks}</code> })}</p>
            {pix.isSuccess && pix.data.client ? (
              <div className="kv">
                <div>
                  <p className="kv-label">{t('pixClientId')} <span className="muted">{t('pixClientIdNote')}</span></p>
                  <CopyValue value={rotatePix.data?.client_id ?? pix.data.client.client_id} label={t('pixClientId')} />
                </div>
              </div>
            ) : pix.isSuccess ? <p>{t('pixNoClient')}</p> : null}
            {rotatePix.isSuccess ? (
              <div className="alert alert-ok" role="status">
                <p><strong>{t('pixNewSecret')}</strong>{t('newTokenText')}</p>
                <CopyValue value={rotatePix.data.client_secret} label={t('pixClientSecret')} />
              </div>
            ) : null}
            <button type="button" className="button danger" onClick={() => ask('pix')}>{pix.data?.client ? t('pixRotate') : t('pixCreate')}</button>
            <p className="muted">{t('pixKeysText')} <Link href="/pix-keys">{t('pixKeysLink')}</Link></p>
            <PasswordDialog open={asking === 'pix'} title={t('pixRotateTitle')} confirmLabel={t('pixRotateConfirm')} busy={rotatePix.isPending}
              error={rotatePix.isError ? rotatePix.error : null} onCancel={() => setAsking(null)} onConfirm={(password) => rotatePix.mutate({ password })}>
              <p>{t('pixRotateText')}</p>
            </PasswordDialog>
          </section>
          <section className="card" aria-labelledby="quick-title">
            <h2 id="quick-title">{t('quickStart')}</h2>
            <p className="muted">{t('quickStartText')}</p>
            {/* focusable: on a phone the commands scroll sideways, and a keyboard must be able to scroll them too */}
            <pre className="code-block" tabIndex={0} aria-labelledby="quick-title">{`curl -s ${origin || 'http://127.0.0.1:3000'}/auth/token \\
  -H 'content-type: application/json' \\
  -d '{"code":"${creds.data.code}","token":"${t('clientTokenPlaceholder')}"}'

curl -s ${origin || 'http://127.0.0.1:3000'}/balance -H 'authorization: Bearer <access_token>'`}</pre>
          </section>
        </>
      )}
    </>
  );
}
