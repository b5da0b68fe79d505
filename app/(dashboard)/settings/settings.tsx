'use client';
import { useMutation } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { DASHBOARD_LOCALES, type DashboardLocale } from '@/contract/enums';
import { FormError, PageHeader } from '../../_components/ui';
import { useTRPC } from '../../_lib/trpc';
import { Receiver } from './receiver';
import { Security } from './security';

export function Settings({ locale }: { locale: DashboardLocale }) {
  const t = useTranslations('settings');
  const trpc = useTRPC();
  const router = useRouter();
  const [choice, setChoice] = useState<DashboardLocale>(locale);
  const save = useMutation(trpc.session.updateSettings.mutationOptions({
    // the pages are rendered on the server in the person's language: render them again
    onSuccess: () => router.refresh(),
  }));
  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      <form className="card form narrow-form" aria-label={t('title')} onSubmit={(e) => { e.preventDefault(); save.mutate({ locale: choice }); }}>
        <FormError error={save.isError ? save.error : null} />
        <fieldset>
          <legend>{t('language')}</legend>
          <div className="checkbox-row" role="radiogroup">
            {DASHBOARD_LOCALES.map((l) => (
              <label key={l} className="checkbox" lang={l}>
                <input type="radio" name="locale" value={l} checked={choice === l} onChange={() => setChoice(l)} /> {t(`locales.${l}`)}
              </label>
            ))}
          </div>
          <p className="hint">{t('languageHint')}</p>
        </fieldset>
        <div className="button-row">
          <button type="submit" className="button primary" disabled={save.isPending}>{save.isPending ? t('saving') : t('save')}</button>
          {save.isSuccess && !save.isPending ? <span role="status" className="muted">{t('saved')}</span> : null}
        </div>
      </form>
      <Receiver />
      <Security />
    </>
  );
}
