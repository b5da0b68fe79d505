import { z } from 'zod';
import { LoteCobVConsulta, LoteCobVConsultado, LoteCobVRevisado, LoteCobVSolicitado, LotesCobVConsultados } from '../../../contract/bcb';

/** A new lote's id: the yaml's path text, read as the int64 its answers carry (positive, held exactly by JavaScript). */
const NovoLoteId = z.string().regex(/^[1-9][0-9]{0,14}$/, { error: 'o id do lote é um inteiro positivo de até 15 dígitos' });

/** The body's fields and the path's id, as the REST adapter merges them. */
export const putLoteInput = LoteCobVSolicitado.safeExtend({ id: NovoLoteId });
export const patchLoteInput = LoteCobVRevisado.safeExtend({ id: z.string().max(200) });
/** GET: an id that cannot be a lote's is not found (the domain says so), as the yaml has no 400 there. */
export const loteIdInput = z.object({ id: z.string().max(200) });
export const loteConsultaInput = LoteCobVConsulta;

export const loteCobVConsultado = LoteCobVConsultado satisfies z.ZodType<LoteCobVConsultado>;
export const lotesCobVConsultados = LotesCobVConsultados satisfies z.ZodType<LotesCobVConsultados>;
