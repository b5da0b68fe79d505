import type { DashboardLocale } from '../db/schema/accounts';
import enCommon from './en/common.json';
import enErrors from './en/errors.json';
import enSettings from './en/settings.json';
import enShell from './en/shell.json';
import enSignIn from './en/signIn.json';
import enStatus from './en/status.json';
import enTerms from './en/terms.json';
import enValidation from './en/validation.json';
import enSearch from './en/search.json';
import enTransactions from './en/transactions.json';
import enOverview from './en/overview.json';
import enDisputes from './en/disputes.json';
import enDevelopers from './en/developers.json';
import enWebhooks from './en/webhooks.json';
import enWithdrawals from './en/withdrawals.json';
import enPayout from './en/payout.json';
import enStatusPage from './en/statusPage.json';
import enRefunds from './en/refunds.json';
import enStatement from './en/statement.json';
import enSecurity from './en/security.json';
import enPixKeys from './en/pixKeys.json';
import enPixCharges from './en/pixCharges.json';
import ptCommon from './pt-BR/common.json';
import ptErrors from './pt-BR/errors.json';
import ptSettings from './pt-BR/settings.json';
import ptShell from './pt-BR/shell.json';
import ptSignIn from './pt-BR/signIn.json';
import ptStatus from './pt-BR/status.json';
import ptTerms from './pt-BR/terms.json';
import ptValidation from './pt-BR/validation.json';
import ptSearch from './pt-BR/search.json';
import ptTransactions from './pt-BR/transactions.json';
import ptOverview from './pt-BR/overview.json';
import ptDisputes from './pt-BR/disputes.json';
import ptDevelopers from './pt-BR/developers.json';
import ptWebhooks from './pt-BR/webhooks.json';
import ptWithdrawals from './pt-BR/withdrawals.json';
import ptPayout from './pt-BR/payout.json';
import ptStatusPage from './pt-BR/statusPage.json';
import ptRefunds from './pt-BR/refunds.json';
import ptStatement from './pt-BR/statement.json';
import ptSecurity from './pt-BR/security.json';
import ptPixKeys from './pt-BR/pixKeys.json';
import ptPixCharges from './pt-BR/pixCharges.json';

/**
 * The dashboard's catalogs: one JSON file per namespace and language (messages/<locale>/<namespace>.json),
 * so pages translated in parallel touch different files; a new namespace adds one import and one line
 * per language here. pt-BR is the reference: its keys type every `t('…')` call (i18n/app-config.d.ts),
 * and test/unit/dashboard-catalogs.test.ts checks English has exactly the same keys.
 */
const ptBR = {
  common: ptCommon,
  errors: ptErrors,
  settings: ptSettings,
  shell: ptShell,
  signIn: ptSignIn,
  status: ptStatus,
  terms: ptTerms,
  validation: ptValidation,
  search: ptSearch,
  transactions: ptTransactions,
  overview: ptOverview,
  disputes: ptDisputes,
  developers: ptDevelopers,
  webhooks: ptWebhooks,
  withdrawals: ptWithdrawals,
  payout: ptPayout,
  statusPage: ptStatusPage,
  refunds: ptRefunds,
  statement: ptStatement,
  security: ptSecurity,
  pixKeys: ptPixKeys,
  pixCharges: ptPixCharges,
};

export type Messages = typeof ptBR;

const en: Messages = {
  common: enCommon,
  errors: enErrors,
  settings: enSettings,
  shell: enShell,
  signIn: enSignIn,
  status: enStatus,
  terms: enTerms,
  validation: enValidation,
  search: enSearch,
  transactions: enTransactions,
  overview: enOverview,
  disputes: enDisputes,
  developers: enDevelopers,
  webhooks: enWebhooks,
  withdrawals: enWithdrawals,
  payout: enPayout,
  statusPage: enStatusPage,
  refunds: enRefunds,
  statement: enStatement,
  security: enSecurity,
  pixKeys: enPixKeys,
  pixCharges: enPixCharges,
};

export const CATALOGS: Record<DashboardLocale, Messages> = { 'pt-BR': ptBR, en };
