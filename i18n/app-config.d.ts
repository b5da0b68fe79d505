import type { DashboardLocale } from '../db/schema/accounts';
import type { Messages } from '../messages';

// Typed catalogs: a `t('…')` key that pt-BR does not have fails `tsc`.
declare module 'next-intl' {
  interface AppConfig {
    Locale: DashboardLocale;
    Messages: Messages;
  }
}
