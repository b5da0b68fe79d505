import { log } from '../../log';
import { DomainError } from '../../errors';
import type { PixRail } from '../rails';
import { maskDocument } from '../../../contract/pix/documents';
import type { PixKeyType } from '../../../contract/pix/keys';

/** GET /pix/keys: the key's holder and bank, as a payer may see them before paying (document masked). */
export interface PixKeyView {
  key: string;
  key_type: PixKeyType;
  holder: { name: string; document_masked: string };
  bank: { name: string; ispb: string };
  timestamp: string;
}

/**
 * Looks a key up in the rail's directory. The key arrives checked by the rules withdrawals use and in
 * its canonical spelling (the schema, server/routers/pix/schemas.ts, does both): not registered is a
 * 404; no rail, or a rail that cannot answer, a 503 (the caller may try again; nothing was changed).
 */
export async function lookupPixKey(rail: PixRail | null, input: { key: string; key_type: PixKeyType }, now: Date): Promise<PixKeyView> {
  if (!rail) throw new DomainError('RAIL_UNAVAILABLE', 'no Pix rail is configured (SANDBOX=false), so keys cannot be looked up');
  let entry;
  try {
    entry = await rail.lookup(input.key_type, input.key);
  } catch (err) {
    log.error({ err, rail: rail.name }, 'the rail could not look a Pix key up');
    throw new DomainError('RAIL_UNAVAILABLE', 'the Pix directory did not answer; try again');
  }
  if (!entry) throw new DomainError('NOT_FOUND', `no ${input.key_type} Pix key ${input.key} is registered in the Pix directory`);
  return {
    key: entry.key,
    key_type: entry.keyType,
    holder: { name: entry.holder.name, document_masked: maskDocument(entry.holder.document) },
    bank: { name: entry.bank.name, ispb: entry.bank.ispb },
    timestamp: now.toISOString(),
  };
}
