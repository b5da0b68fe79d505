import type { DevolucaoRow } from '../../../db/stores/pix-received';
import { centsToAmount, type Devolucao } from '../../../contract/bcb';
import { DomainError } from '../../errors';

const STATUS = { PENDING: 'EM_PROCESSAMENTO', PAID: 'DEVOLVIDO', ERROR: 'NAO_REALIZADO' } as const;

/** A devolução as the yaml's Devolucao: the refund's status, its return's end-to-end id as rtrId. */
export function devolucaoView(d: DevolucaoRow): Devolucao {
  if (d.rtrId === null) throw new DomainError('INTERNAL', `devolução ${d.id} has no rtrId`);
  return {
    id: d.id,
    rtrId: d.rtrId,
    valor: centsToAmount(d.amount),
    natureza: d.natureza,
    ...(d.descricao !== null ? { descricao: d.descricao } : {}),
    horario: { solicitacao: d.createdAt, ...(d.status === 'PAID' ? { liquidacao: d.settledAt } : {}) },
    status: STATUS[d.status],
    ...(d.status === 'ERROR' && d.failureReason ? { motivo: d.failureReason.slice(0, 140) } : {}),
  };
}

