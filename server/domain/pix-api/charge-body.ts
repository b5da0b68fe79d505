// The stored `body` of a charge (pix_charges.body, and each revision's): the agreed format, the API's JSON
// minus what has its own column (txid, revisao, status, chave, location). Declared and read back here once,
// for the charges' views and revisions, the sandbox payer, the payloads and the amount due.
import type { CobVGerada } from '../../../contract/bcb';
import { DomainError } from '../../errors';

export interface ChargeBody {
  calendario: { criacao: string; expiracao?: number; dataDeVencimento?: string; validadeAposVencimento?: number };
  devedor?: CobVGerada['devedor'];
  recebedor?: CobVGerada['recebedor'];
  valor: { original: string; modalidadeAlteracao?: number; [k: string]: unknown };
  infoAdicionais?: { nome: string; valor: string }[];
  solicitacaoPagador?: string;
}

/** A stored charge as far as its body goes. */
export interface StoredCharge { txid: string; body: string }

/** A stored row that does not hold what the agreed format promises is our fault, never the caller's. */
export function corruptCharge(txid: string, what: string): DomainError {
  return new DomainError('INTERNAL', `pix charge ${txid}: ${what}`);
}

/** The charge's stored body; a body that is not JSON is a defect (500), never the caller's input. */
export function readChargeBody(charge: StoredCharge): ChargeBody {
  try {
    return JSON.parse(charge.body) as ChargeBody;
  } catch {
    throw corruptCharge(charge.txid, 'body is not JSON');
  }
}
