import { randomBytes } from 'node:crypto';
import type { PixChargeKind, PixChargeStatus } from '../../contract/enums';
import { pixCharges, pixLocations } from '../../db/schema';
import { newId } from '../../server/domain/ids';
import type { Services } from '../../server/services';

/** What a charge row holds besides its location, in the agreed format (pix_charges.body: the API's JSON minus its own columns). */
export interface SeededCharge {
  accountId: string;
  kind: PixChargeKind;
  txid?: string;
  status?: PixChargeStatus;
  revisao?: number;
  chave: string;
  /** valor.original in cents. */
  amount: number;
  body: Record<string, unknown>;
  /** A cobv's dataDeVencimento. */
  dueDate?: string;
  createdAt?: Date;
}

/**
 * A location and the charge bound to it, written straight into the tables as the charge side writes
 * them: for tests of what reads charges (the payload locations) without going through PUT /v2/cob.
 */
export async function seedPixCharge(s: Pick<Services, 'db'>, c: SeededCharge): Promise<{ token: string; locId: number; txid: string; chargeId: string }> {
  const token = randomBytes(16).toString('hex');
  const txid = c.txid ?? randomBytes(16).toString('hex');
  const at = (c.createdAt ?? new Date()).toISOString();
  const chargeId = newId('pixCharge');
  const document = (c.body.devedor as { cpf?: string; cnpj?: string } | undefined);
  const locId = await s.db.write(async (tx) => {
    const [{ id }] = await tx.handle.insert(pixLocations).values({ accountId: c.accountId, token, tipoCob: c.kind, txid, createdAt: at }).returning({ id: pixLocations.id });
    await tx.handle.insert(pixCharges).values({
      id: chargeId, accountId: c.accountId, txid, kind: c.kind, status: c.status ?? 'ATIVA', revisao: c.revisao ?? 0, chave: c.chave,
      locId: Number(id), amount: c.amount, body: JSON.stringify(c.body), document: document?.cpf ?? document?.cnpj ?? null,
      dueDate: c.dueDate ?? null, expiresAt: null, batchId: 0, transactionId: null, createdAt: at, updatedAt: at,
    });
    return Number(id);
  });
  return { token, locId, txid, chargeId };
}
