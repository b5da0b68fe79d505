import type { Stores } from '../../../db';
import type { DevolucaoRow, PayableCharge, PixReceivedRow } from '../../../db/stores/pix-received';
import { centsToAmount, type Pix, type PixConsulta, type PixConsultados } from '../../../contract/bcb';
import { DomainError } from '../../errors';
import type { Services } from '../../services';
import { newId } from '../ids';
import { localDay } from '../local-time';
import { newEndToEndId } from '../pix/end-to-end';
import { pickReceiverBank } from '../pix/participants';
import { creditTransaction, recordTransactionEvent } from '../transactions/create';
import { queuePixDevolucaoDelivery, queuePixReceivedDelivery } from './webhooks';
import { requireSandbox } from '../transactions/pay';
import { transactionIdentifier } from '../transactions/pix-charge';
import { isDay } from './calendar';
import { readChargeBody } from './charge-body';
import { cobvAmountDueOn } from './amount-due';
import { componentesValorJson, type ComponentesValor } from './due-date';
import { devolucaoView } from './devolucao-view';

/** Who paid a Pix received, as the charge's devedor named them (the yaml's Pessoa: cpf or cnpj, nome). */
export interface Pagador { cpf?: string; cnpj?: string; nome: string }

/** The yaml's Pix, plus who paid it (`pagador`, as PSPs add it: the yaml's Pix leaves it open). */
export type PixView = Pix & { pagador?: Pagador };

/** Who pays a cob that names no devedor in the sandbox: one fixed payer with a valid CPF. */
export const SANDBOX_PAYER: Pagador = { cpf: '52998224725', nome: 'Pagador Sandbox' };

const ZERO_COMPONENTS: Omit<ComponentesValor, 'original'> = { multa: 0, juros: 0, abatimento: 0, desconto: 0 };

function pixOf(row: PixReceivedRow, devolucoes: DevolucaoRow[]): PixView {
  const componentes = JSON.parse(row.componentes) as ComponentesValor;
  return {
    endToEndId: row.endToEndId,
    ...(row.txid !== null ? { txid: row.txid } : {}),
    valor: centsToAmount(row.amount),
    componentesValor: componentesValorJson(componentes),
    chave: row.chave,
    horario: row.receivedAt,
    pagador: JSON.parse(row.pagador) as Pagador,
    ...(row.infoPagador !== null ? { infoPagador: row.infoPagador } : {}),
    devolucoes: devolucoes.map(devolucaoView),
  };
}

/**
 * The yaml's Pix for one of the account's Pix received, with its devoluções as they stand (GET
 * /v2/pix/{e2eid}, a charge's `pix`, the webhook's `{"pix":[…]}`); null when the account has none with
 * that id. For a caller on one snapshot (a read's, or a write job's), so the Pix and its devoluções agree.
 */
export async function readPix(tx: Stores, accountId: string, endToEndId: string): Promise<PixView | null> {
  const row = await tx.pixReceived.received(accountId, endToEndId);
  if (!row) return null;
  return pixOf(row, await tx.pixReceived.devolucoesOf([endToEndId]));
}

/** GET /v2/pix/{e2eid}: 404 PixNaoEncontrado for an unknown id or another account's. */
export async function getPix(s: Pick<Services, 'db'>, accountId: string, endToEndId: string): Promise<PixView> {
  const view = await s.db.read.snapshot((r) => readPix(r, accountId, endToEndId));
  if (!view) throw new DomainError('NOT_FOUND', 'Pix não encontrado para o e2eid informado.', { problem: 'PixNaoEncontrado' });
  return view;
}

/** GET /v2/pix: the account's Pix received between inicio and fim (inclusive), oldest first, paged as the yaml says. */
export async function listPix(s: Pick<Services, 'db'>, accountId: string, q: PixConsulta): Promise<PixConsultados & { pix: PixView[] }> {
  const paginaAtual = q['paginacao.paginaAtual'];
  const itensPorPagina = q['paginacao.itensPorPagina'];
  const iso = (s: string) => new Date(s).toISOString();
  return s.db.read.snapshot(async (r) => {
    const { rows, total } = await r.pixReceived.list({
      accountId, inicio: iso(q.inicio), fim: iso(q.fim), txid: q.txid, txIdPresente: q.txIdPresente,
      devolucaoPresente: q.devolucaoPresente, document: q.cpf ?? q.cnpj,
      offset: paginaAtual * itensPorPagina, limit: itensPorPagina,
    });
    const devolucoes = await r.pixReceived.devolucoesOf(rows.map((p) => p.endToEndId));
    const byPix = new Map<string, DevolucaoRow[]>();
    for (const d of devolucoes) byPix.set(d.endToEndId, [...(byPix.get(d.endToEndId) ?? []), d]);
    return {
      parametros: {
        inicio: q.inicio, fim: q.fim,
        ...(q.txid !== undefined ? { txid: q.txid } : {}),
        ...(q.txIdPresente !== undefined ? { txIdPresente: q.txIdPresente } : {}),
        ...(q.devolucaoPresente !== undefined ? { devolucaoPresente: q.devolucaoPresente } : {}),
        ...(q.cpf !== undefined ? { cpf: q.cpf } : {}),
        ...(q.cnpj !== undefined ? { cnpj: q.cnpj } : {}),
        paginacao: {
          paginaAtual, itensPorPagina,
          quantidadeDePaginas: Math.max(1, Math.ceil(total / itensPorPagina)),
          quantidadeTotalDeItens: total,
        },
      },
      pix: rows.map((p) => pixOf(p, byPix.get(p.endToEndId) ?? [])),
    };
  });
}

/** The body of POST /sandbox/pix/pay. */
export interface SandboxPixPay { txid: string; date?: string }

const invalid = (kind: PayableCharge['kind'], detail: string) =>
  new DomainError('INVALID_STATE', detail, { problem: kind === 'cobv' ? 'CobVOperacaoInvalida' : 'CobOperacaoInvalida' });

/** What the payer pays for `charge` on `day` (São Paulo), or why it cannot be paid then (a 400, nothing changed). */
function amountFor(charge: PayableCharge, day: string, at: Date): { amount: number; componentes: ComponentesValor } {
  if (charge.status !== 'ATIVA') {
    throw invalid(charge.kind, charge.status === 'CONCLUIDA'
      ? 'A cobrança já foi paga (status CONCLUIDA): uma cobrança é paga uma única vez.'
      : `A cobrança não está ATIVA (status ${charge.status}) e não pode ser paga.`);
  }
  if (charge.kind === 'cob') {
    if (day !== localDay(at)) throw invalid('cob', 'Uma cobrança imediata (cob) é paga hoje: date só se aplica a cobv.');
    if (charge.expiresAt !== null && charge.expiresAt <= at.toISOString()) throw invalid('cob', 'A cobrança expirou (calendario.expiracao) e não pode mais ser paga.');
    return { amount: charge.amount, componentes: { original: charge.amount, ...ZERO_COMPONENTS } };
  }
  const due = cobvAmountDueOn({ txid: charge.txid, dueDate: null, body: charge.body }, day);
  if (!due.payable) {
    throw invalid('cobv', due.reason === 'antes-da-criacao' ? `A data de pagamento ${day} é anterior à criação da cobrança (${due.criacao}).`
      : due.reason === 'apos-validade' ? `A cobrança não pode ser paga em ${day}: o último dia de pagamento é ${due.ultimoDia} (validadeAposVencimento).`
        : `O valor devido em ${day} excede o limite de um Pix.`);
  }
  return { amount: due.valor, componentes: due.componentes };
}

/**
 * POST /sandbox/pix/pay: the payer's bank pays the account's charge `txid` on `date` (São Paulo; today
 * when absent; a cob only today), the amount due that day. One write job: the charge's row lock, an
 * APPROVED PIX transaction with its end-to-end id and ledger credit (`transaction.approved`), the charge
 * CONCLUIDA with that transaction, and the Pix received (componentesValor in cents, pagador = the devedor).
 *
 * Exactly once: payers of one charge take its row lock in turn (one writer on SQLite); the first makes
 * it CONCLUIDA, every other then finds it CONCLUIDA and is refused with 400 (the charge is paid once; a
 * second Pix for it would be a second payment, not a retry). Refused pays change nothing.
 */
export async function sandboxPayCharge(s: Services, accountId: string, input: SandboxPixPay): Promise<PixView> {
  requireSandbox(s);
  if (input.date !== undefined && !isDay(input.date)) {
    throw new DomainError('VALIDATION', 'date: not a calendar date', { issues: [{ path: 'date', message: 'data no formato YYYY-MM-DD' }] });
  }
  return s.db.write(async (tx) => {
    const at = s.clock.now();
    const iso = at.toISOString();
    const day = input.date ?? localDay(at);
    const charge = await tx.pixReceived.lockChargeForPayment(accountId, input.txid);
    if (!charge) throw new DomainError('NOT_FOUND', 'Cobrança não encontrada para o txid informado.', { problem: 'CobNaoEncontrado' });
    const { amount, componentes } = amountFor(charge, day, at);

    const d = readChargeBody(charge).devedor;
    const pagador: Pagador = d?.nome && (d.cpf || d.cnpj) ? { ...(d.cpf ? { cpf: d.cpf } : { cnpj: d.cnpj }), nome: d.nome } : SANDBOX_PAYER;
    const document = (pagador.cpf ?? pagador.cnpj)!;
    // the payer's bank stands in for a real one: the same payer always pays from the same bank
    const endToEndId = newEndToEndId(pickReceiverBank(document).ispb, at);

    const id = newId('transaction');
    const customerId = newId('customer');
    await tx.transactions.insertCustomer({
      id: customerId, accountId, name: pagador.nome, email: d?.email ?? '', phone: null, document, address: null, createdAt: iso,
    });
    await tx.transactions.insertTransaction({
      id, accountId, identifier: transactionIdentifier(id), method: 'PIX', status: 'PENDING', amount, currency: 'BRL', customerId,
      items: JSON.stringify([{ title: `Cobrança ${charge.txid}`, unitPrice: amount, quantity: 1, tangible: false }]), qrcode: null,
      invoiceId: null, invoiceDueDate: null, invoiceDigitableLine: null, cardBrand: null, cardLast4: null, cardHolderName: null,
      installments: null, postback: null, externalRef: null, metadata: null, expiresAt: null, createdAt: iso, updatedAt: iso,
    });
    // the same move to APPROVED as every paid charge (sandboxPay): conditional on PENDING
    if (!(await tx.transactions.markPaid(id, { endToEnd: endToEndId, updatedAt: iso }))) {
      throw new DomainError('INTERNAL', 'a transaction created in this job was not PENDING');
    }
    if (!(await tx.pixReceived.markChargePaid(charge.id, id, iso))) throw invalid(charge.kind, 'A cobrança mudou enquanto era paga.');
    await creditTransaction(tx, { accountId, id, method: 'PIX', amount, at });
    await tx.pixReceived.insertReceived({
      endToEndId, accountId, transactionId: id, chargeId: charge.id, txid: charge.txid, chave: charge.chave, amount,
      componentes: JSON.stringify(componentes), pagador: JSON.stringify(pagador), pagadorDocument: document, infoPagador: null, receivedAt: iso,
    });
    await recordTransactionEvent(tx, accountId, id, 'transaction.approved', at);
    const pix = (await readPix(tx, accountId, endToEndId))!;
    // the key's webhook hears of it if and only if this payment commits
    await queuePixReceivedDelivery(tx, { accountId, chave: charge.chave, resourceId: endToEndId, pix, at });
    return pix;
  });
}

/**
 * Inside the job that settles a refund: when the refund is a devolução of a Pix received, the key's webhook
 * gets the Pix again with its `devolucoes` as they now stand (the yaml notifies DEVOLVIDO and NAO_REALIZADO).
 */
export async function notifyDevolucaoSettled(tx: Stores, refundId: string, at: Date): Promise<void> {
  const d = await tx.pixReceived.devolucaoOfRefund(refundId);
  if (!d) return;
  const pix = await readPix(tx, d.accountId, d.endToEndId);
  if (pix) await queuePixDevolucaoDelivery(tx, { accountId: d.accountId, chave: d.chave, resourceId: d.endToEndId, pix, at });
}
