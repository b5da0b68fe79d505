// The charges of the API Pix (/v2/cob, /v2/cobv): created with the caller's txid (PUT) or one of ours
// (POST /cob), revised (PATCH: revisao + 1, each revision kept), read (as last revised or at a revision)
// and listed. A charge carries a payload location and a dynamic BR Code naming it. Paying, the Pix
// received and the payloads are elsewhere; they read charges through `chargeByTxid` and `chargeView`.
import { randomInt } from 'node:crypto';
import {
  amountToCents, type CobConsulta, type CobGerada, type CobRevisada, type CobSolicitada, type CobsConsultadas, type CobVConsulta,
  type CobVGerada, type CobVRevisada, type CobVSolicitada, type CobsVConsultadas,
} from '../../../contract/bcb';
import { PIX_CHARGE_STATUSES, type PixChargeKind, type PixChargeStatus } from '../../../contract/enums';
import type { Stores } from '../../../db';
import type { AccountReceiverRow } from '../../../db/stores/accounts';
import type { PixChargeRow, PixLocationRow } from '../../../db/stores/pix-charges';
import { DomainError, type FieldIssue } from '../../errors';
import type { Services } from '../../services';
import { newId } from '../ids';
import { localDay, startOfLocalDay } from '../local-time';
import { buildDynamicPixBrCode, MAX_MERCHANT_CITY_LENGTH, MAX_MERCHANT_NAME_LENGTH, toBrCodeText } from '../pix/brcode';
import { readChargeBody, type ChargeBody } from './charge-body';
import { dueDates } from './due-date';
import { formatCobvValor, parseCobvCalendario, parseCobvValor, type CobvValorJson, type ValorIssue } from './due-date-input';
import { insertLocation, locationUrl, locationView } from './locations';
import type { PixApiProblemName } from './problem';

type Deps = Pick<Services, 'db' | 'clock' | 'config'>;

/** What a charge's view needs besides its rows: where its locations live and whom the BR Code names. */
export interface Presentation {
  pixPublicBase: string; merchantName: string; merchantCity: string;
  /** The account as recebedor (account_receivers), registered in the dashboard; null while none is. */
  receiver: AccountReceiverRow | null;
}

/** A charge with the location it is bound to (null when none, or when the location no longer names it). */
export interface ChargeRecord { row: PixChargeRow; loc: PixLocationRow | null }

/** A revision's stored body: the charge's body then, with its `chave` and location then (the charge's own columns). */
type RevisionBody = ChargeBody & { chave: string; locId: number | null };

const DEFAULT_EXPIRACAO = 86_400;
const TXID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const DAY_MS = 86_400_000;

/** The txid of POST /cob: 32 characters of [a-zA-Z0-9], each drawn uniformly by the CSPRNG. */
export function newTxid(): string {
  let out = '';
  for (let i = 0; i < 32; i++) out += TXID_ALPHABET[randomInt(TXID_ALPHABET.length)];
  return out;
}

const problems = (kind: PixChargeKind) => ({
  invalid: (kind === 'cob' ? 'CobOperacaoInvalida' : 'CobVOperacaoInvalida') as PixApiProblemName,
  notFound: (kind === 'cob' ? 'CobNaoEncontrado' : 'CobVNaoEncontrada') as PixApiProblemName,
});

/** A refused request: 400 with the yaml's invalid type of the kind and a violação per issue. */
function refused(kind: PixChargeKind, issues: FieldIssue[]): DomainError {
  return new DomainError('VALIDATION', issues.map((i) => `${i.path}: ${i.message}`).join('; '), { issues, problem: problems(kind).invalid });
}

function notFound(kind: PixChargeKind): DomainError {
  return new DomainError('NOT_FOUND', kind === 'cob' ? 'Cobrança não encontrada para o txid informado.' : 'Cobrança com vencimento não encontrada para o txid informado.', { problem: problems(kind).notFound });
}

/** due-date-input's issues (`valor.desconto.descontoDataFixa[0].data`) as field issues with dotted paths, as violacoes read them. */
function fromValorIssues(issues: ValorIssue[]): FieldIssue[] {
  return issues.map((i) => ({ path: i.property.replace(/\[(\d+)\]/g, '.$1'), message: i.reason }));
}

/** A paid charge is final: the database refuses any change of it (pix_charges_paid_is_final). */
function isPaidIsFinal(err: unknown): boolean {
  for (let e = err as { message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.message === 'string' && e.message.includes('a paid charge is final')) return true;
  }
  return false;
}

const notRevisable = (kind: PixChargeKind) => new DomainError('INVALID_STATE',
  'Cobrança não encontra-se mais com o status ATIVA, somente cobranças ativas podem ser revisadas.', { problem: problems(kind).invalid });

/** The presentation of the account's charges. */
export async function presentationFor(tx: Stores, config: Services['config'], accountId: string): Promise<Presentation> {
  const name = (await tx.accounts.merchantName(accountId)) ?? '';
  const receiver = (await tx.accounts.receiver(accountId)) ?? null;
  return { pixPublicBase: config.pixPublicBase, merchantName: name, merchantCity: config.merchantCity, receiver };
}

/** The charge `txid` of the account with its location, or null (another account's is null, as an unknown one). */
export async function chargeByTxid(tx: Stores, accountId: string, txid: string): Promise<ChargeRecord | null> {
  const row = await tx.pixCharges.chargeByTxid(accountId, txid);
  if (!row) return null;
  const loc = row.locId === null ? null : (await tx.pixCharges.location(accountId, row.locId)) ?? null;
  return { row, loc: loc && loc.txid === row.txid ? loc : null };
}

/** The location part of a charge's view: `loc`, `location` and the BR Code naming it; nothing once unlinked. */
function locationParts(loc: PixLocationRow | null, p: Presentation) {
  if (!loc) return {};
  const url = locationUrl(p.pixPublicBase, loc.tipoCob, loc.token);
  const pixCopiaECola = buildDynamicPixBrCode({
    url,
    merchantName: toBrCodeText(p.merchantName, MAX_MERCHANT_NAME_LENGTH) || 'MERCHANT',
    merchantCity: toBrCodeText(p.merchantCity, MAX_MERCHANT_CITY_LENGTH) || 'SAO PAULO',
  });
  return { loc: locationView(loc, p.pixPublicBase), location: url, pixCopiaECola };
}

/** What a cob and a cobv show alike, in the order the API answers it: between `calendario` and `valor`. */
function commonParts(rec: ChargeRecord, b: ChargeBody, p: Presentation) {
  return {
    txid: rec.row.txid,
    revisao: rec.row.revisao,
    ...locationParts(rec.loc, p),
    status: rec.row.status,
    ...(b.devedor ? { devedor: b.devedor } : {}),
    ...(b.solicitacaoPagador !== undefined ? { solicitacaoPagador: b.solicitacaoPagador } : {}),
    ...(b.infoAdicionais !== undefined ? { infoAdicionais: b.infoAdicionais } : {}),
  };
}

/** A cob as the API answers it (CobGerada; CobCompleta without `pix`, which the Pix received add). */
export function cobView(rec: ChargeRecord, p: Presentation): CobGerada {
  const b = readChargeBody(rec.row);
  return {
    calendario: { criacao: b.calendario.criacao, expiracao: b.calendario.expiracao ?? DEFAULT_EXPIRACAO },
    ...commonParts(rec, b, p),
    valor: b.valor as CobGerada['valor'],
    chave: rec.row.chave,
  };
}

/**
 * A cobv as the API answers it (CobVGerada; CobVCompleta without `pix`). `location` is absent once the
 * location was unlinked (DELETE /loc/{id}/txid), although CobVGerada requires it: the yaml's two texts
 * disagree and the unlink says the charge no longer has one.
 */
export function cobvView(rec: ChargeRecord, p: Presentation): CobVView {
  const b = readChargeBody(rec.row);
  return {
    calendario: { criacao: b.calendario.criacao, dataDeVencimento: b.calendario.dataDeVencimento!, validadeAposVencimento: b.calendario.validadeAposVencimento ?? 30 },
    ...commonParts(rec, b, p),
    devedor: b.devedor as CobVGerada['devedor'],
    // as stored with the charge (every cobv is made with one; a revision refreshes it)
    recebedor: b.recebedor!,
    valor: b.valor as CobVGerada['valor'],
    chave: rec.row.chave,
  };
}

/** CobVGerada as served: `location` optional (see cobvView). */
export type CobVView = Omit<CobVGerada, 'location'> & { location?: string };

/** Either view, by the charge's kind. */
export function chargeView(rec: ChargeRecord, p: Presentation): CobGerada | CobVView {
  return rec.row.kind === 'cob' ? cobView(rec, p) : cobvView(rec, p);
}

/**
 * The recebedor of a cobv: the account, as its receiver data says (document, names, address; the yaml
 * requires them). An account without receiver data cannot make a cobv: refused, 400, nothing stored.
 */
function recebedorOf(p: Presentation): CobVGerada['recebedor'] {
  const r = p.receiver;
  if (!r) {
    // no violacoes: nothing in the request is wrong, and the detail (the type's own when there are) says what to do
    throw new DomainError('VALIDATION', 'O recebedor da conta (CPF/CNPJ e endereço) não está cadastrado: cadastre-o no painel, em Configurações, antes de criar ou revisar cobranças com vencimento.',
      { problem: 'CobVOperacaoInvalida' });
  }
  return {
    ...(r.document.length === 11 ? { cpf: r.document } : { cnpj: r.document }),
    nome: r.name,
    ...(r.tradeName ? { nomeFantasia: r.tradeName } : {}),
    logradouro: r.street, cidade: r.city, uf: r.uf, cep: r.cep,
  };
}

// ---------------------------------------------------------------------------------------------------
// Creating

/** The rules every new or revised charge shares, inside the job: the key is the account's, the location is free and of the kind. */
async function checkKey(tx: Stores, kind: PixChargeKind, accountId: string, chave: string): Promise<void> {
  const keys = await tx.pixKeys.liveKeys(accountId);
  if (!keys.some((k) => k.key === chave)) throw refused(kind, [{ path: 'chave', message: 'a chave não é uma das chaves Pix desta conta' }]);
}

async function freeLocation(tx: Stores, kind: PixChargeKind, accountId: string, id: number, txid: string, tipoCob?: PixChargeKind): Promise<PixLocationRow> {
  if (tipoCob !== undefined && tipoCob !== kind) throw refused(kind, [{ path: 'loc.tipoCob', message: `uma ${kind} usa uma location do tipo ${kind}` }]);
  const loc = await tx.pixCharges.location(accountId, id);
  if (!loc) throw refused(kind, [{ path: 'loc.id', message: 'location não encontrada' }]);
  if (loc.tipoCob !== kind) throw refused(kind, [{ path: 'loc.id', message: `a location é do tipo ${loc.tipoCob}, não ${kind}` }]);
  if (loc.txid !== null && loc.txid !== txid) throw refused(kind, [{ path: 'loc.id', message: 'a location já está vinculada a outra cobrança' }]);
  return loc;
}

function documentOf(devedor: { cpf?: string; cnpj?: string } | undefined): string | null {
  return devedor?.cpf ?? devedor?.cnpj ?? null;
}

/** Our choices on a cob's valor beyond the schema: an amount above zero, and no Pix Saque or Troco (we are no withdrawal agent). */
function cobValorLimits(valor: { original?: string; modalidadeAlteracao?: number; retirada?: unknown } | undefined): FieldIssue[] {
  const out: FieldIssue[] = [];
  if (valor?.retirada !== undefined) out.push({ path: 'valor.retirada', message: 'Pix Saque e Pix Troco não são oferecidos' });
  else if (valor?.original !== undefined && amountToCents(valor.original) === 0) out.push({ path: 'valor.original', message: 'o valor deve ser maior que zero' });
  return out;
}

type CobInput = CobSolicitada & { txid?: string };
export type CobVInput = CobVSolicitada & { txid: string };

/** PUT /cob/{txid} (txid given) and POST /cob (txid undefined: one of ours). */
export async function createCob(s: Deps, accountId: string, input: CobInput): Promise<CobGerada> {
  const issues = cobValorLimits(input.valor);
  if (issues.length) throw refused('cob', issues);
  const txid = input.txid ?? newTxid();
  const rec = await s.db.write(async (tx) => {
    const now = s.clock.now();
    const criacao = now.toISOString();
    await tx.pixCharges.lockCharge(accountId, txid, input.loc ? [input.loc.id] : []);
    if (await tx.pixCharges.chargeByTxid(accountId, txid)) throw refused('cob', [{ path: 'txid', message: 'o txid já foi utilizado por outra cobrança desta conta' }]);
    await checkKey(tx, 'cob', accountId, input.chave);
    const loc = input.loc ? await freeLocation(tx, 'cob', accountId, input.loc.id, txid, input.loc.tipoCob) : await insertLocation(tx, accountId, 'cob', criacao, txid);
    if (input.loc) await tx.pixCharges.setLocationTxid(loc.id, txid);
    const expiracao = input.calendario.expiracao ?? DEFAULT_EXPIRACAO;
    const body: ChargeBody = {
      calendario: { criacao, expiracao },
      ...(input.devedor ? { devedor: input.devedor } : {}),
      valor: { original: input.valor.original, ...(input.valor.modalidadeAlteracao !== undefined ? { modalidadeAlteracao: input.valor.modalidadeAlteracao } : {}) },
      ...(input.infoAdicionais ? { infoAdicionais: input.infoAdicionais } : {}),
      ...(input.solicitacaoPagador !== undefined ? { solicitacaoPagador: input.solicitacaoPagador } : {}),
    };
    const row: PixChargeRow = {
      id: newId('pixCharge'), accountId, txid, kind: 'cob', status: 'ATIVA', revisao: 0, chave: input.chave, locId: loc.id,
      amount: amountToCents(input.valor.original), body: JSON.stringify(body), document: documentOf(input.devedor), dueDate: null,
      expiresAt: new Date(now.getTime() + expiracao * 1000).toISOString(), batchId: 0, transactionId: null, createdAt: criacao, updatedAt: criacao,
    };
    await tx.pixCharges.insertCharge(row);
    await tx.pixCharges.insertRevision(revisionOf(row));
    return { rec: { row, loc: { ...loc, txid } }, p: await presentationFor(tx, s.config, accountId) };
  });
  return cobView(rec.rec, rec.p);
}

function revisionOf(row: PixChargeRow): { chargeId: string; revisao: number; status: PixChargeStatus; amount: number; body: string; createdAt: string } {
  const body: RevisionBody = { ...readChargeBody(row), chave: row.chave, locId: row.locId };
  return { chargeId: row.id, revisao: row.revisao, status: row.status, amount: row.amount, body: JSON.stringify(body), createdAt: row.updatedAt };
}

/**
 * The instant a cobv stops being payable: the end (São Paulo) of the last day it can be paid; null when
 * its validity runs past the calendar's end (no instant to write).
 */
function cobvExpiresAt(dataDeVencimento: string, validadeAposVencimento: number): string | null {
  const { ultimoDia } = dueDates({ dataDeVencimento, validadeAposVencimento });
  if (ultimoDia >= '9999-12-31') return null;
  return new Date(startOfLocalDay(ultimoDia).getTime() + DAY_MS).toISOString();
}

/** A cobv's calendario and valor checked by due-date-input's rules, read back as the wire's JSON (tiers in date order). */
function readCobvTerms(calendario: unknown, valor: unknown, today: string, dueNotBefore: string): { dataDeVencimento: string; validadeAposVencimento: number; valor: CobvValorJson } {
  const cal = parseCobvCalendario(calendario, { today: dueNotBefore, path: 'calendario' });
  if (!cal.ok) throw refused('cobv', fromValorIssues(cal.issues));
  const v = parseCobvValor(valor, { dataDeVencimento: cal.value.dataDeVencimento, today, path: 'valor' });
  if (!v.ok) throw refused('cobv', fromValorIssues(v.issues));
  return { dataDeVencimento: cal.value.dataDeVencimento, validadeAposVencimento: cal.value.validadeAposVencimento ?? 30, valor: formatCobvValor(v.value) };
}

/** A cobv's terms read and checked before its write job (due-date-input's rules; `today` is the creation day, São Paulo). */
export type CobvTerms = ReturnType<typeof readCobvTerms>;
export function cobvTerms(input: Pick<CobVSolicitada, 'calendario' | 'valor'>, today: string): CobvTerms {
  return readCobvTerms(input.calendario, input.valor, today, today);
}

/**
 * Inside a write job: creates a cobv whose terms were read by `cobvTerms` (PUT /cobv/{txid}, and each
 * charge of a lotecobv, `batchId` its lote). Takes the txid's and the location's locks; throws the
 * DomainError of a refused one (txid used, key not the account's, location not free).
 */
export async function insertCobvInJob(tx: Stores, at: Date, config: Services['config'], accountId: string, input: CobVInput, terms: CobvTerms, batchId = 0): Promise<CobVView> {
  const txid = input.txid;
  const criacao = at.toISOString();
  await tx.pixCharges.lockCharge(accountId, txid, input.loc ? [input.loc.id] : []);
  if (await tx.pixCharges.chargeByTxid(accountId, txid)) throw refused('cobv', [{ path: 'txid', message: 'o txid já foi utilizado por outra cobrança desta conta' }]);
  await checkKey(tx, 'cobv', accountId, input.chave);
  const loc = input.loc ? await freeLocation(tx, 'cobv', accountId, input.loc.id, txid, input.loc.tipoCob) : await insertLocation(tx, accountId, 'cobv', criacao, txid);
  if (input.loc) await tx.pixCharges.setLocationTxid(loc.id, txid);
  const p = await presentationFor(tx, config, accountId);
  const body: ChargeBody = {
    calendario: { criacao, dataDeVencimento: terms.dataDeVencimento, validadeAposVencimento: terms.validadeAposVencimento },
    devedor: input.devedor,
    recebedor: recebedorOf(p),
    valor: { ...terms.valor },
    ...(input.infoAdicionais ? { infoAdicionais: input.infoAdicionais } : {}),
    ...(input.solicitacaoPagador !== undefined ? { solicitacaoPagador: input.solicitacaoPagador } : {}),
  };
  const row: PixChargeRow = {
    id: newId('pixCharge'), accountId, txid, kind: 'cobv', status: 'ATIVA', revisao: 0, chave: input.chave, locId: loc.id,
    amount: amountToCents(terms.valor.original), body: JSON.stringify(body), document: documentOf(input.devedor), dueDate: terms.dataDeVencimento,
    expiresAt: cobvExpiresAt(terms.dataDeVencimento, terms.validadeAposVencimento), batchId, transactionId: null, createdAt: criacao, updatedAt: criacao,
  };
  await tx.pixCharges.insertCharge(row);
  await tx.pixCharges.insertRevision(revisionOf(row));
  return cobvView({ row, loc: { ...loc, txid } }, p);
}

/** PUT /cobv/{txid}. */
export async function createCobv(s: Deps, accountId: string, input: CobVInput): Promise<CobVView> {
  const terms = cobvTerms(input, localDay(s.clock.now()));
  return s.db.write((tx) => insertCobvInJob(tx, s.clock.now(), s.config, accountId, input, terms));
}

// ---------------------------------------------------------------------------------------------------
// Revising

/**
 * Inside the job of a revision: the charge locked and read, refused unless ATIVA, and a new `loc.id`
 * checked free. Nothing is written until `bindLocation` (a new location bound, the old one freed), which
 * the caller runs after its own checks: every refusal of a revision comes before its first write, so a
 * lotecobv can refuse one charge and go on with the others in the same job.
 */
async function lockedForRevision(tx: Stores, kind: PixChargeKind, accountId: string, txid: string, newLoc: { id: number; tipoCob?: PixChargeKind } | undefined) {
  const newLocId = newLoc?.id;
  await tx.pixCharges.lockCharge(accountId, txid, newLocId !== undefined ? [newLocId] : []);
  const row = await tx.pixCharges.chargeByTxid(accountId, txid);
  if (!row || row.kind !== kind) throw notFound(kind);
  if (row.status !== 'ATIVA') throw notRevisable(kind);
  const loc = newLocId !== undefined && newLocId !== row.locId ? await freeLocation(tx, kind, accountId, newLocId, txid, newLoc?.tipoCob) : null;
  const bindLocation = async (): Promise<number | null> => {
    if (!loc) return row.locId;
    // the old one first: a txid names one location at a time (pix_locations_txid_uq)
    if (row.locId !== null) {
      const old = await tx.pixCharges.location(accountId, row.locId);
      if (old?.txid === txid) await tx.pixCharges.setLocationTxid(old.id, null);
    }
    await tx.pixCharges.setLocationTxid(loc.id, txid);
    return loc.id;
  };
  return { row, bindLocation };
}

/** Writes the revised charge and its revision; a charge paid meanwhile (the database refuses it) is a 400, never a 500. */
async function saveRevision(tx: Stores, kind: PixChargeKind, accountId: string, revised: PixChargeRow): Promise<ChargeRecord> {
  try {
    await tx.pixCharges.updateCharge(revised.id, {
      status: revised.status, revisao: revised.revisao, chave: revised.chave, locId: revised.locId, amount: revised.amount, body: revised.body,
      document: revised.document, dueDate: revised.dueDate, expiresAt: revised.expiresAt, updatedAt: revised.updatedAt,
    });
  } catch (err) {
    if (isPaidIsFinal(err)) throw notRevisable(kind);
    throw err;
  }
  await tx.pixCharges.insertRevision(revisionOf(revised));
  const loc = revised.locId === null ? null : (await tx.pixCharges.location(accountId, revised.locId)) ?? null;
  return { row: revised, loc: loc && loc.txid === revised.txid ? loc : null };
}

/** PATCH /cob/{txid}. */
export async function reviseCob(s: Deps, accountId: string, input: CobRevisada & { txid: string }): Promise<CobGerada> {
  const issues = cobValorLimits(input.valor);
  if (issues.length) throw refused('cob', issues);
  const out = await s.db.write(async (tx) => {
    const now = s.clock.now().toISOString();
    const { row, bindLocation } = await lockedForRevision(tx, 'cob', accountId, input.txid, input.loc);
    if (input.chave !== undefined) await checkKey(tx, 'cob', accountId, input.chave);
    const locId = await bindLocation();
    const b = readChargeBody(row);
    const expiracao = input.calendario?.expiracao ?? b.calendario.expiracao ?? DEFAULT_EXPIRACAO;
    const valor = input.valor ? { ...b.valor, ...input.valor } : b.valor;
    const body: ChargeBody = {
      ...b,
      calendario: { criacao: b.calendario.criacao, expiracao },
      ...(input.devedor ? { devedor: input.devedor } : {}),
      valor,
      ...(input.infoAdicionais ? { infoAdicionais: input.infoAdicionais } : {}),
      ...(input.solicitacaoPagador !== undefined ? { solicitacaoPagador: input.solicitacaoPagador } : {}),
    };
    const revised: PixChargeRow = {
      ...row, status: input.status ?? row.status, revisao: row.revisao + 1, chave: input.chave ?? row.chave, locId,
      amount: amountToCents(valor.original), body: JSON.stringify(body), document: documentOf(body.devedor),
      expiresAt: new Date(Date.parse(b.calendario.criacao) + expiracao * 1000).toISOString(), updatedAt: now,
    };
    return { rec: await saveRevision(tx, 'cob', accountId, revised), p: await presentationFor(tx, s.config, accountId) };
  });
  return cobView(out.rec, out.p);
}

/**
 * Inside a write job: revises a cobv (PATCH /cobv/{txid}, and each charge of a PATCH /lotecobv/{id}); the
 * merged charge is judged again by the creation's rules (a due date kept as it was may have passed).
 * Throws the DomainError of a refused revision before writing anything.
 */
export async function reviseCobvInJob(tx: Stores, at: Date, config: Services['config'], accountId: string, input: CobVRevisada & { txid: string }): Promise<CobVView> {
  const today = localDay(at);
  const { row, bindLocation } = await lockedForRevision(tx, 'cobv', accountId, input.txid, input.loc);
  if (input.chave !== undefined) await checkKey(tx, 'cobv', accountId, input.chave);
  const b = readChargeBody(row);
  const p = await presentationFor(tx, config, accountId);
  // a revision carries the account's recebedor as it is now (refused while none is registered); a removal
  // keeps the one the charge has, so a charge made before receiver data existed can still be cancelled
  const recebedor = input.status === undefined ? recebedorOf(p) : b.recebedor;
  const calendario = { dataDeVencimento: b.calendario.dataDeVencimento, validadeAposVencimento: b.calendario.validadeAposVencimento, ...input.calendario };
  const valor = input.valor ? { ...b.valor, ...input.valor } : b.valor;
  const dueGiven = input.calendario?.dataDeVencimento !== undefined;
  const terms = readCobvTerms(calendario, valor, today, dueGiven ? today : calendario.dataDeVencimento!);
  const locId = await bindLocation();
  const body: ChargeBody = {
    ...b,
    calendario: { criacao: b.calendario.criacao, dataDeVencimento: terms.dataDeVencimento, validadeAposVencimento: terms.validadeAposVencimento },
    ...(input.devedor ? { devedor: input.devedor } : {}),
    ...(recebedor ? { recebedor } : {}),
    valor: { ...terms.valor },
    ...(input.infoAdicionais ? { infoAdicionais: input.infoAdicionais } : {}),
    ...(input.solicitacaoPagador !== undefined ? { solicitacaoPagador: input.solicitacaoPagador } : {}),
  };
  const revised: PixChargeRow = {
    ...row, status: input.status ?? row.status, revisao: row.revisao + 1, chave: input.chave ?? row.chave, locId,
    amount: amountToCents(terms.valor.original), body: JSON.stringify(body), document: documentOf(body.devedor), dueDate: terms.dataDeVencimento,
    expiresAt: cobvExpiresAt(terms.dataDeVencimento, terms.validadeAposVencimento), updatedAt: at.toISOString(),
  };
  return cobvView(await saveRevision(tx, 'cobv', accountId, revised), p);
}

/** PATCH /cobv/{txid}. */
export async function reviseCobv(s: Deps, accountId: string, input: CobVRevisada & { txid: string }): Promise<CobVView> {
  return s.db.write((tx) => reviseCobvInJob(tx, s.clock.now(), s.config, accountId, input));
}

// ---------------------------------------------------------------------------------------------------
// Reading

/** A charge as it stood at `revisao` (the revision's own chave, body and location). */
async function atRevision(tx: Stores, rec: ChargeRecord, revisao: number): Promise<ChargeRecord | null> {
  if (revisao === rec.row.revisao) return rec;
  const r = await tx.pixCharges.revision(rec.row.id, revisao);
  if (!r) return null;
  const { chave, locId, ...body } = readChargeBody({ txid: rec.row.txid, body: r.body }) as RevisionBody;
  const row: PixChargeRow = { ...rec.row, status: r.status, revisao: r.revisao, amount: r.amount, body: JSON.stringify(body), chave, locId };
  const loc = locId === null ? null : (await tx.pixCharges.location(rec.row.accountId, locId)) ?? null;
  return { row, loc: loc && loc.txid === row.txid ? loc : null };
}

async function readCharge(s: Pick<Services, 'db' | 'config'>, kind: PixChargeKind, accountId: string, txid: string, revisao?: number) {
  return s.db.read.snapshot(async (db) => {
    const rec = await chargeByTxid(db, accountId, txid);
    if (!rec || rec.row.kind !== kind) throw notFound(kind);
    const at = revisao === undefined ? rec : await atRevision(db, rec, revisao);
    if (!at) throw refused(kind, [{ path: 'revisao', message: `a cobrança não tem a revisão ${revisao} (a atual é ${rec.row.revisao})` }]);
    return { rec: at, p: await presentationFor(db, s.config, accountId) };
  });
}

/** GET /cob/{txid} (?revisao=n). */
export async function getCob(s: Pick<Services, 'db' | 'config'>, accountId: string, txid: string, revisao?: number): Promise<CobGerada> {
  const { rec, p } = await readCharge(s, 'cob', accountId, txid, revisao);
  return cobView(rec, p);
}

/** GET /cobv/{txid} (?revisao=n). */
export async function getCobv(s: Pick<Services, 'db' | 'config'>, accountId: string, txid: string, revisao?: number): Promise<CobVView> {
  const { rec, p } = await readCharge(s, 'cobv', accountId, txid, revisao);
  return cobvView(rec, p);
}

async function listCharges(s: Pick<Services, 'db' | 'config'>, kind: PixChargeKind, accountId: string, q: CobConsulta & { loteCobVId?: number }) {
  if (q.status !== undefined && !(PIX_CHARGE_STATUSES as readonly string[]).includes(q.status)) {
    throw new DomainError('VALIDATION', `status: use ${PIX_CHARGE_STATUSES.join(', ')}`, {
      issues: [{ path: 'status', message: `o status é um de ${PIX_CHARGE_STATUSES.join(', ')}` }],
      problem: kind === 'cob' ? 'CobConsultaInvalida' : 'CobVConsultaInvalida',
    });
  }
  const paginaAtual = q['paginacao.paginaAtual'];
  const itensPorPagina = q['paginacao.itensPorPagina'];
  return s.db.read.snapshot(async (tx) => {
    const { rows, total } = await tx.pixCharges.listCharges({
      accountId, kind, inicio: new Date(q.inicio).toISOString(), fim: new Date(q.fim).toISOString(),
      document: q.cpf ?? q.cnpj, locationPresente: q.locationPresente, status: q.status as PixChargeStatus | undefined, batchId: q.loteCobVId,
    }, { offset: paginaAtual * itensPorPagina, limit: itensPorPagina });
    const locs = await tx.pixCharges.locationsById(accountId, rows.flatMap((r) => (r.locId === null ? [] : [r.locId])));
    const p = await presentationFor(tx, s.config, accountId);
    const recs = rows.map((row): ChargeRecord => {
      const loc = row.locId === null ? null : locs.get(row.locId) ?? null;
      return { row, loc: loc && loc.txid === row.txid ? loc : null };
    });
    const parametros = {
      inicio: q.inicio, fim: q.fim,
      ...(q.cpf !== undefined ? { cpf: q.cpf } : {}),
      ...(q.cnpj !== undefined ? { cnpj: q.cnpj } : {}),
      ...(q.locationPresente !== undefined ? { locationPresente: q.locationPresente } : {}),
      ...(q.status !== undefined ? { status: q.status } : {}),
      paginacao: { paginaAtual, itensPorPagina, quantidadeDePaginas: Math.max(1, Math.ceil(total / itensPorPagina)), quantidadeTotalDeItens: total },
    };
    return { parametros, recs, p };
  });
}

/** GET /cob. */
export async function listCobs(s: Pick<Services, 'db' | 'config'>, accountId: string, q: CobConsulta): Promise<CobsConsultadas> {
  const { parametros, recs, p } = await listCharges(s, 'cob', accountId, q);
  return { parametros, cobs: recs.map((r) => cobView(r, p)) };
}

/** GET /cobv. */
export type CobsVListadas = Omit<CobsVConsultadas, 'cobs'> & { cobs: CobVView[] };
export async function listCobvs(s: Pick<Services, 'db' | 'config'>, accountId: string, q: CobVConsulta): Promise<CobsVListadas> {
  const { parametros, recs, p } = await listCharges(s, 'cobv', accountId, q);
  return { parametros, cobs: recs.map((r) => cobvView(r, p)) };
}
