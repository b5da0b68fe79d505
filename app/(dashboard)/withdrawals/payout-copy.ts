import en from '../../../messages/en/payout.json';

/**
 * The words of the reviewed payout and of failed batches, already in the catalog files
 * (messages/<locale>/payout.json, pt-BR and en) so they join the i18n setup unchanged once it lands;
 * until then the dashboard speaks English, like every other page today.
 */
export const payoutCopy = en;

/** `{name}` placeholders, as the catalogs' ICU messages write them. */
export function fill(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (_, k: string) => String(values[k] ?? `{${k}}`));
}
