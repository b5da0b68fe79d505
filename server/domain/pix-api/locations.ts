// Payload locations of the API Pix (/v2/loc): the URL a dynamic BR Code carries (field 26-25), where the
// payer's bank fetches the charge's signed payload. Created on their own (POST /loc) or with a charge;
// bound to at most one charge at a time.
import { randomBytes } from 'node:crypto';
import type { PayloadLocation, PayloadLocationCompleta, PayloadLocationConsulta, PayloadLocationConsultadas } from '../../../contract/bcb';
import type { PixChargeKind } from '../../../contract/enums';
import type { Stores } from '../../../db';
import type { PixLocationRow } from '../../../db/stores/pix-charges';
import { DomainError } from '../../errors';
import type { Services } from '../../services';

/** The location URL without its scheme, as the BR Code and the API carry it (the agreed format). */
export function locationUrl(pixPublicBase: string, tipoCob: PixChargeKind, token: string): string {
  return tipoCob === 'cob' ? `${pixPublicBase}/qr/v2/${token}` : `${pixPublicBase}/qr/v2/cobv/${token}`;
}

/** A new pixUrlAccessToken: 128 random bits, 32 lower-case hex characters. */
export function newLocationToken(): string {
  return randomBytes(16).toString('hex');
}

export function locationView(loc: PixLocationRow, pixPublicBase: string): PayloadLocation {
  return { id: loc.id, location: locationUrl(pixPublicBase, loc.tipoCob, loc.token), tipoCob: loc.tipoCob, criacao: loc.createdAt };
}

export function locationCompletaView(loc: PixLocationRow, pixPublicBase: string): PayloadLocationCompleta {
  return { ...locationView(loc, pixPublicBase), ...(loc.txid ? { txid: loc.txid } : {}) };
}

/** Inside a write job: a new location of the account, unbound unless `txid` is given. */
export async function insertLocation(tx: Stores, accountId: string, tipoCob: PixChargeKind, at: string, txid: string | null = null): Promise<PixLocationRow> {
  const row = { accountId, token: newLocationToken(), tipoCob, txid, createdAt: at };
  const id = await tx.pixCharges.insertLocation(row);
  return { id, ...row };
}

/** POST /loc. */
export async function createLocation(s: Pick<Services, 'db' | 'clock' | 'config'>, accountId: string, tipoCob: PixChargeKind): Promise<PayloadLocation> {
  const loc = await s.db.write((tx) => insertLocation(tx, accountId, tipoCob, s.clock.now().toISOString()));
  return locationView(loc, s.config.pixPublicBase);
}

const notFound = () => new DomainError('NOT_FOUND', 'Location não encontrada para o id informado.', { problem: 'PayloadLocationNaoEncontrado' });

/** The id of the path (`/loc/{id}`): the yaml types it as a string; ours are positive integers, anything else is not found. */
function locationId(id: string): number {
  if (!/^\d{1,15}$/.test(id) || Number(id) < 1) throw notFound();
  return Number(id);
}

/** GET /loc/{id}. */
export async function getLocation(s: Pick<Services, 'db' | 'config'>, accountId: string, id: string): Promise<PayloadLocationCompleta> {
  const loc = await s.db.read.pixCharges.location(accountId, locationId(id));
  if (!loc) throw notFound();
  return locationCompletaView(loc, s.config.pixPublicBase);
}

/** GET /loc. */
export async function listLocations(s: Pick<Services, 'db' | 'config'>, accountId: string, q: PayloadLocationConsulta): Promise<PayloadLocationConsultadas> {
  const paginaAtual = q['paginacao.paginaAtual'];
  const itensPorPagina = q['paginacao.itensPorPagina'];
  const { rows, total } = await s.db.read.pixCharges.listLocations(
    { accountId, inicio: new Date(q.inicio).toISOString(), fim: new Date(q.fim).toISOString(), txIdPresente: q.txIdPresente, tipoCob: q.tipoCob },
    { offset: paginaAtual * itensPorPagina, limit: itensPorPagina },
  );
  return {
    parametros: {
      inicio: q.inicio, fim: q.fim,
      ...(q.txIdPresente !== undefined ? { txIdPresente: q.txIdPresente } : {}),
      ...(q.tipoCob !== undefined ? { tipoCob: q.tipoCob } : {}),
      paginacao: { paginaAtual, itensPorPagina, quantidadeDePaginas: Math.max(1, Math.ceil(total / itensPorPagina)), quantidadeTotalDeItens: total },
    },
    loc: rows.map((r) => locationCompletaView(r, s.config.pixPublicBase)),
  };
}

/**
 * DELETE /loc/{id}/txid: the location loses its txid and the charge its location (the yaml: its status
 * is unchanged). A paid charge is final (the database refuses any change of it): its row keeps the old
 * location id, and the views show a location only while it names the charge back.
 */
export async function unlinkLocation(s: Pick<Services, 'db' | 'config'>, accountId: string, idText: string): Promise<PayloadLocation> {
  const id = locationId(idText);
  const seen = await s.db.read.pixCharges.location(accountId, id);
  if (!seen) throw notFound();
  const loc = await s.db.write(async (tx) => {
    // the charge's lock and the location's, together, in the order every charge write takes them
    if (seen.txid) await tx.pixCharges.lockCharge(accountId, seen.txid, [id]);
    else await tx.pixCharges.lockLocation(id);
    const now = await tx.pixCharges.location(accountId, id);
    if (!now) throw notFound();
    if (now.txid) {
      const charge = await tx.pixCharges.chargeByTxid(accountId, now.txid);
      // a txid bound after our read is under no lock of ours: leave it, the caller sees it still bound
      if (now.txid !== seen.txid) return now;
      if (charge && charge.locId === id && charge.status !== 'CONCLUIDA') await tx.pixCharges.updateCharge(charge.id, { locId: null });
      await tx.pixCharges.setLocationTxid(id, null);
    }
    return { ...now, txid: null };
  });
  return locationView(loc, s.config.pixPublicBase);
}
