import { z } from 'zod';
import {
  CobCompleta, CobConsulta, CobGerada, CobRevisada, CobsConsultadas, CobSolicitada, CobVConsulta, CobVGerada, CobVRevisada, CobVSolicitada,
  ParametrosConsultaCob, RevisaoConsulta, TxId,
} from '../../../contract/bcb';
import type { CobsVListadas, CobVView } from '../../domain/pix-api/charges';

/** The body's fields and the path's txid, as the REST adapter merges them (the body's own refinements kept). */
export const putCobInput = CobSolicitada.safeExtend({ txid: TxId });
export const postCobInput = CobSolicitada;
export const patchCobInput = CobRevisada.safeExtend({ txid: TxId });
export const putCobvInput = CobVSolicitada.safeExtend({ txid: TxId });
export const patchCobvInput = CobVRevisada.safeExtend({ txid: TxId });

/**
 * GET /cob/{txid}: the yaml answers a txid it does not know with 404 (it has no 400 here), so any text
 * is taken and one that cannot be a txid is simply not found.
 */
export const getChargeInput = RevisaoConsulta.extend({ txid: z.string().max(200) });

export const cobConsultaInput = CobConsulta;
export const cobvConsultaInput = CobVConsulta;

export const cobGerada = CobGerada satisfies z.ZodType<CobGerada>;
export const cobCompleta = CobCompleta satisfies z.ZodType<CobGerada>;
export const cobsConsultadas = CobsConsultadas satisfies z.ZodType<CobsConsultadas>;

/** CobVGerada as served: `location` is gone once its location is unlinked (server/domain/pix-api/charges.ts cobvView). */
export const cobvGerada = CobVGerada.extend({ location: CobVGerada.shape.location.optional() }) satisfies z.ZodType<CobVView>;
export const cobvCompleta = cobvGerada;
export const cobsVConsultadas = z.object({ parametros: ParametrosConsultaCob, cobs: z.array(cobvGerada) }) satisfies z.ZodType<CobsVListadas>;
