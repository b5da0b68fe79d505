// The account as the recebedor of its charges: its CPF or CNPJ, legal name, trade name and address, which a
// cobv's `recebedor` and payload carry (the yaml requires the document and the address). Registered in the
// dashboard (Configurações) or by account:create; a cobv is refused while an account has none.
import { cnpjProblem, cpfProblem, normalizeDocument } from '../../contract/pix/documents';
import { UFS } from '../../contract/receiver';
import type { Stores } from '../../db';
import type { AccountReceiverRow } from '../../db/stores/accounts';
import { DomainError, type FieldIssue } from '../errors';
import { recordAudit, type DashboardActor } from './audit-trail';
import type { Services } from '../services';

export { UFS } from '../../contract/receiver';

/** The receiver data as the dashboard and account:create send it (punctuation allowed in document and cep). */
export interface ReceiverInput {
  document: string; name: string; trade_name?: string | null; street: string; city: string; uf: string; cep: string;
}

/** The receiver data as answered: document and cep normalised; null trade_name when none. */
export interface ReceiverView {
  document: string; name: string; trade_name: string | null; street: string; city: string; uf: string; cep: string; updated_at: string;
}

// the yaml's DadosRecebedor: nome, nomeFantasia, logradouro and cidade up to 200 characters
const MAX_TEXT = 200;

function text(issues: FieldIssue[], path: string, value: string | null | undefined, required: boolean): string | null {
  const v = (value ?? '').replace(/\s+/g, ' ').trim();
  if (!v) {
    if (required) issues.push({ path, message: 'is required' });
    return null;
  }
  if (v.length > MAX_TEXT) issues.push({ path, message: `at most ${MAX_TEXT} characters` });
  return v;
}

/** The input checked and normalised, or a 400 naming each field that is wrong. */
export function checkReceiver(input: ReceiverInput): Omit<AccountReceiverRow, 'accountId' | 'updatedAt'> {
  const issues: FieldIssue[] = [];
  const document = normalizeDocument(input.document ?? '');
  if (document.length === 11 && /^\d+$/.test(document)) {
    const p = cpfProblem(document);
    if (p) issues.push({ path: 'document', message: `not a valid CPF: ${p}` });
  } else if (document.length === 14) {
    const p = cnpjProblem(document);
    if (p) issues.push({ path: 'document', message: `not a valid CNPJ: ${p}` });
  } else {
    issues.push({ path: 'document', message: 'a CPF has 11 digits and a CNPJ 14 characters' });
  }
  const name = text(issues, 'name', input.name, true);
  const tradeName = text(issues, 'trade_name', input.trade_name, false);
  const street = text(issues, 'street', input.street, true);
  const city = text(issues, 'city', input.city, true);
  const uf = (input.uf ?? '').trim().toUpperCase();
  if (!(UFS as readonly string[]).includes(uf)) issues.push({ path: 'uf', message: 'must be one of the 27 units of the federation (SP, RJ, DF…)' });
  const cep = (input.cep ?? '').replace(/[.\-\s]/g, '');
  if (!/^\d{8}$/.test(cep)) issues.push({ path: 'cep', message: 'must be 8 digits' });
  if (issues.length) {
    throw new DomainError('VALIDATION', issues.map((i) => `${i.path}: ${i.message}`).join('; '), { issues });
  }
  return { document, name: name!, tradeName, street: street!, city: city!, uf, cep };
}

export function receiverView(row: AccountReceiverRow): ReceiverView {
  return {
    document: row.document, name: row.name, trade_name: row.tradeName, street: row.street, city: row.city, uf: row.uf, cep: row.cep,
    updated_at: row.updatedAt,
  };
}

/** The account's receiver data, or null while none is registered. */
export async function accountReceiver(s: Pick<Services, 'db'>, accountId: string): Promise<ReceiverView | null> {
  const reads = s.db.read;
  const row = await reads.accounts.receiver(accountId);
  return row ? receiverView(row) : null;
}

/** Inside a write job: registers or replaces the account's receiver data (checked by `checkReceiver`). */
export async function putReceiverInJob(tx: Stores, accountId: string, fields: ReturnType<typeof checkReceiver>, at: Date): Promise<AccountReceiverRow> {
  const row: AccountReceiverRow = { accountId, ...fields, updatedAt: at.toISOString() };
  await tx.accounts.upsertReceiver(row);
  return row;
}

/** The dashboard's change of the receiver data, recorded in the audit trail in the same job. */
export async function setAccountReceiver(s: Pick<Services, 'db' | 'clock'>, who: Omit<DashboardActor, 'sessionId'>, input: ReceiverInput): Promise<ReceiverView> {
  const fields = checkReceiver(input);
  return s.db.write(async (tx) => {
    const at = s.clock.now();
    const row = await putReceiverInJob(tx, who.accountId, fields, at);
    await recordAudit(tx, who, 'receiver.update', at);
    return receiverView(row);
  });
}
