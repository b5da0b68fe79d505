'use client';
import { useTranslations } from 'next-intl';

/** `transaction.approved` → "Cobrança aprovada": the catalog nests by the type's dot, so the type is its own key. */
export function useEventTypeLabel() {
  const t = useTranslations('webhooks');
  return (type: string): string => {
    const key = `eventType.${type}` as 'eventType.webhook.test';
    return t.has(key) ? t(key) : t('otherEvent');
  };
}

/**
 * An attempt's failure in the person's language. The delivery log stores the sender's fixed English
 * wordings (server/domain/webhooks/sender.ts, which REST callers read as they are); each one is
 * recognised here, and anything new reads as a plain "sending failed" rather than leaking English.
 */
export function useAttemptErrorText() {
  const t = useTranslations('webhooks.attemptError');
  return (error: string): string => {
    let m: RegExpExecArray | null;
    if ((m = /^unexpected status HTTP (\d+)/.exec(error))) return t('status', { status: m[1] });
    if ((m = /^redirect not followed \(HTTP (\d+)\)/.exec(error))) return t('redirect', { status: m[1] });
    if ((m = /^timeout after (\d+) ms/.exec(error))) return t('timeout', { ms: m[1] });
    if (error === 'connection refused') return t('refused');
    if (error === 'connection reset') return t('reset');
    if (error === 'connection closed mid-response') return t('closed');
    if (error.startsWith('DNS lookup failed')) return t('dns');
    if (error.startsWith('refused:')) return t('private');
    if (/^(invalid URL|only http and https|credentials in the URL|hostname required)/.test(error)) return t('badUrl');
    if (error.startsWith('cannot sign')) return t('unreadableSecret');
    return t('other');
  };
}

/**
 * The URL checks' refusals (server/domain/webhooks/url-guard.ts answers them as field issues in English,
 * for REST callers) in the person's language; other field messages come translated already.
 */
export function useUrlFieldText() {
  const t = useTranslations('webhooks.urlError');
  return (message: string | undefined): string | undefined => {
    if (!message) return message;
    if (message === 'invalid URL') return t('invalid');
    if (message === 'only http and https URLs are allowed') return t('scheme');
    if (message === 'credentials in the URL are not allowed') return t('credentials');
    if (message === 'hostname required') return t('hostname');
    if (message === 'hostname does not resolve') return t('unresolved');
    if (message.includes('private or reserved address')) return t('private');
    return message;
  };
}
