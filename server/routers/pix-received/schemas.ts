import { z } from 'zod';
import {
  Cnpj, Cpf, Data, Devolucao, DevolucaoId, DevolucaoSolicitada, EndToEndId, ParametrosConsultaPix, Pix, PixConsulta, TxId,
} from '../../../contract/bcb';
import type { Devolucao as DevolucaoView } from '../../../contract/bcb';
import type { PixView } from '../../domain/pix-api/received';

/** POST /sandbox/pix/pay: the charge's txid and the São Paulo day the payer pays on (today when absent). */
export const sandboxPixPayInput = z.strictObject({ txid: TxId, date: Data.optional() });

/** The yaml's Pix, with who paid it (`pagador`, which the yaml's Pix leaves open). */
export const pixView = Pix.extend({
  pagador: z.object({ cpf: Cpf.optional(), cnpj: Cnpj.optional(), nome: z.string().max(200) }).optional(),
}) satisfies z.ZodType<PixView>;

export const pixInput = z.object({ e2eid: EndToEndId });

export const pixListInput = PixConsulta;

export const pixList = z.object({ parametros: ParametrosConsultaPix, pix: z.array(pixView) });

/** The body of PUT /v2/pix/{e2eid}/devolucao/{id} with the path's ids, as the REST adapter merges them. */
export const devolucaoInput = z.strictObject({ ...DevolucaoSolicitada.shape, e2eid: EndToEndId, id: DevolucaoId });

export const devolucaoKeyInput = z.object({ e2eid: EndToEndId, id: DevolucaoId });

export const devolucaoView = Devolucao satisfies z.ZodType<DevolucaoView>;
