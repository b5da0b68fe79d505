import type { DevolucaoRow } from '../../../db/stores/pix-received';
import { amountToCents, type Devolucao } from '../../../contract/bcb';
import { devolucaoView } from './devolucao-view';
import { DomainError } from '../../errors';
import { wake, type Services } from '../../services';
import { newEndToEndId } from '../pix/end-to-end';
import { railFor } from '../rails';
import { REFUND_SETTLEMENT_JOB, requestRefund } from '../transactions/refunds';

/** The body of PUT /v2/pix/{e2eid}/devolucao/{id}, with the path's ids. */
export interface DevolucaoRequest {
  e2eid: string;
  id: string;
  valor: string;
  natureza?: 'ORIGINAL' | 'RETIRADA';
  descricao?: string;
}

const refused = (detail: string, issues?: { path: string; message: string }[]) =>
  new DomainError('VALIDATION', detail, { problem: 'PixDevolucaoInvalida', ...(issues ? { issues } : {}) });

/** The refund machinery's refusals, in the devolução's words (400 PixDevolucaoInvalida, never a 500). */
function asDevolucaoProblem(err: unknown): unknown {
  if (!(err instanceof DomainError)) return err;
  switch (err.code) {
    case 'UNPROCESSABLE': case 'INVALID_STATE':
      return refused('O valor da devolução excede o valor ainda não devolvido do Pix.', [{ path: 'valor', message: 'a soma das devoluções não pode exceder o valor do Pix' }]);
    case 'INSUFFICIENT_FUNDS':
      return refused('O saldo disponível não cobre a devolução.', [{ path: 'valor', message: 'o saldo disponível não cobre a devolução' }]);
    default: return err;
  }
}

/**
 * PUT /v2/pix/{e2eid}/devolucao/{id}: returns part or all of a Pix received to its payer, through the
 * refund of its transaction (the one refund machinery: ledger, triggers, rail). One write job: the Pix's
 * transaction locked, the caller's id looked up, the refund requested with its return's `D…` end-to-end
 * id reserved as rtrId, the devolução stored. The same id with the same body answers the devolução as it
 * stands; with another body, 400. More than what is left of the Pix, or a balance that does not cover
 * it, is 400 PixDevolucaoInvalida and nothing is stored. Only natureza ORIGINAL is offered.
 */
export async function requestDevolucao(s: Services, accountId: string, input: DevolucaoRequest): Promise<Devolucao> {
  const natureza = input.natureza ?? 'ORIGINAL';
  if (natureza !== 'ORIGINAL') {
    throw refused('Devoluções de natureza RETIRADA (Pix Saque ou Pix Troco) não são oferecidas: use ORIGINAL.', [{ path: 'natureza', message: 'somente ORIGINAL é oferecida' }]);
  }
  const amount = amountToCents(input.valor);
  const descricao = input.descricao ?? null;
  const rail = railFor(s.config);
  const { view, created } = await s.db.write(async (tx) => {
    const at = s.clock.now();
    const pix = await tx.pixReceived.lockReceivedForDevolucao(accountId, input.e2eid);
    if (!pix) throw new DomainError('NOT_FOUND', 'Pix não encontrado para o e2eid informado.', { problem: 'PixNaoEncontrado' });
    const existing = await tx.pixReceived.devolucao(accountId, input.e2eid, input.id);
    if (existing) {
      if (existing.amount !== amount || existing.natureza !== natureza || existing.descricao !== descricao) {
        throw refused(`A devolução ${input.id} já existe com outro conteúdo: um id identifica uma única devolução.`, [{ path: 'id', message: 'id já usado por outra devolução deste Pix' }]);
      }
      return { view: devolucaoView(existing), created: false };
    }
    // the return goes back to the payer's institution: the ISPB of the Pix's own id
    const rtrId = newEndToEndId(pix.endToEndId.slice(1, 9), at, 'D');
    let refundId: string;
    try {
      ({ id: refundId } = await requestRefund(tx, rail, { accountId, transactionId: pix.transactionId, amount, reason: descricao, at, endToEnd: rtrId, origin: s.instance }));
    } catch (err) {
      throw asDevolucaoProblem(err);
    }
    await tx.pixReceived.insertDevolucao({ endToEndId: pix.endToEndId, id: input.id, accountId, refundId, natureza: 'ORIGINAL', descricao, createdAt: at.toISOString() });
    return { view: devolucaoView((await tx.pixReceived.devolucao(accountId, input.e2eid, input.id))!), created: true };
  });
  if (created) wake(s, REFUND_SETTLEMENT_JOB);
  return view;
}

/** GET /v2/pix/{e2eid}/devolucao/{id}: 404 for an unknown Pix or devolução, or another account's. */
export async function getDevolucao(s: Pick<Services, 'db'>, accountId: string, e2eid: string, id: string): Promise<Devolucao> {
  const row = await s.db.read.pixReceived.devolucao(accountId, e2eid, id);
  if (!row) throw new DomainError('NOT_FOUND', 'Devolução não encontrada para o e2eid e o id informados.', { problem: 'PixDevolucaoNaoEncontrada' });
  return devolucaoView(row);
}
