// Charges of the API Pix inserted straight into a database, in the agreed format (db/schema/pix-charges.ts),
// for tests of paying them and of what follows (the Pix received, devoluções) that do not go through
// PUT /v2/cob or /v2/cobv.
import { randomBytes } from 'node:crypto';
import { pixChargeRevisions, pixCharges, pixLocations } from '../../db/schema';
import { newId } from '../../server/domain/ids';
import { addDays, localDay, startOfLocalDay } from '../../server/domain/local-time';
import { dueDates } from '../../server/domain/pix-api/due-date';
import type { Services } from '../../server/services';

export interface SeededCharge { id: string; txid: string; locId: number }

/** A txid of 32 letters and digits (26–35 are allowed). */
export const newTxid = () => randomBytes(16).toString('hex');

type Devedor = { cpf?: string; cnpj?: string; nome: string; email?: string };

async function seed(s: Services, row: {
  accountId: string; kind: 'cob' | 'cobv'; txid: string; chave: string; amount: number; body: Record<string, unknown>;
  document: string | null; dueDate: string | null; expiresAt: string; at: Date;
}): Promise<SeededCharge> {
  const iso = row.at.toISOString();
  const id = newId('pixCharge');
  const body = JSON.stringify(row.body);
  const locId = await s.db.write(async (tx) => {
    const [loc] = await tx.handle.insert(pixLocations).values({
      accountId: row.accountId, token: randomBytes(16).toString('hex'), tipoCob: row.kind, txid: row.txid, createdAt: iso,
    }).returning({ id: pixLocations.id });
    await tx.handle.insert(pixCharges).values({
      id, accountId: row.accountId, txid: row.txid, kind: row.kind, status: 'ATIVA', revisao: 0, chave: row.chave, locId: loc.id,
      amount: row.amount, body, document: row.document, dueDate: row.dueDate, expiresAt: row.expiresAt, batchId: 0,
      createdAt: iso, updatedAt: iso,
    });
    await tx.handle.insert(pixChargeRevisions).values({ chargeId: id, revisao: 0, status: 'ATIVA', amount: row.amount, body, createdAt: iso });
    return loc.id;
  });
  return { id, txid: row.txid, locId };
}

const cents = (amount: string) => Math.round(Number(amount) * 100);

/** An ATIVA cob of `original` ("123.45"), expiring `expiracao` seconds after now. */
export function seedCob(s: Services, o: { accountId: string; chave: string; original: string; expiracao?: number; devedor?: Devedor; txid?: string }): Promise<SeededCharge> {
  const at = new Date();
  const expiracao = o.expiracao ?? 3600;
  return seed(s, {
    accountId: o.accountId, kind: 'cob', txid: o.txid ?? newTxid(), chave: o.chave, amount: cents(o.original),
    body: { calendario: { criacao: at.toISOString(), expiracao }, ...(o.devedor ? { devedor: o.devedor } : {}), valor: { original: o.original } },
    document: o.devedor?.cpf ?? o.devedor?.cnpj ?? null, dueDate: null, expiresAt: new Date(at.getTime() + expiracao * 1000).toISOString(), at,
  });
}

/** An ATIVA cobv with `valor` as the wire shape (amounts as "123.45" strings), created now. */
export function seedCobv(s: Services, o: {
  accountId: string; chave: string; valor: Record<string, unknown> & { original: string }; dataDeVencimento: string;
  validadeAposVencimento?: number; devedor: Devedor; txid?: string;
}): Promise<SeededCharge> {
  const at = new Date();
  const validadeAposVencimento = o.validadeAposVencimento ?? 30;
  const { ultimoDia } = dueDates({ dataDeVencimento: o.dataDeVencimento, validadeAposVencimento });
  return seed(s, {
    accountId: o.accountId, kind: 'cobv', txid: o.txid ?? newTxid(), chave: o.chave, amount: cents(o.valor.original),
    body: { calendario: { criacao: at.toISOString(), dataDeVencimento: o.dataDeVencimento, validadeAposVencimento }, devedor: o.devedor, valor: o.valor },
    document: o.devedor.cpf ?? o.devedor.cnpj ?? null, dueDate: o.dataDeVencimento,
    expiresAt: startOfLocalDay(addDays(ultimoDia, 1)).toISOString(), at,
  });
}

/** Today in São Paulo, and `n` days from it. */
export const today = () => localDay(new Date());
export const daysFromToday = (n: number) => addDays(today(), n);
