// Charges of the API Pix created as a client creates them, over HTTP (PUT /v2/cob/{txid}, PUT
// /v2/cobv/{txid}), for tests of paying them and of what follows (the Pix received, devoluções).
import { randomBytes } from 'node:crypto';
import { addDays, localDay } from '../../server/domain/local-time';
import { api } from './server';

export interface CreatedCharge { txid: string; body: Record<string, unknown> }

type Devedor = { cpf?: string; cnpj?: string; nome: string; email?: string };

/** A txid of 32 letters and digits (26–35 are allowed). */
export const newTxid = () => randomBytes(16).toString('hex');

async function put(url: string, token: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await api(url, path, { token, method: 'PUT', body });
  if (res.status !== 201) throw new Error(`PUT ${path}: ${res.status} ${res.text}`);
  return res.json;
}

/** An ATIVA cob of `original` ("123.45") expiring `expiracao` seconds from now, created with PUT /v2/cob/{txid}. */
export async function putCob(url: string, token: string, o: { chave: string; original: string; expiracao?: number; devedor?: Devedor }): Promise<CreatedCharge> {
  const txid = newTxid();
  const body = await put(url, token, `/v2/cob/${txid}`, {
    calendario: { expiracao: o.expiracao ?? 3600 }, ...(o.devedor ? { devedor: o.devedor } : {}), valor: { original: o.original }, chave: o.chave,
  });
  return { txid, body };
}

/** An ATIVA cobv with `valor` as the wire shape, created with PUT /v2/cobv/{txid}. */
export async function putCobv(url: string, token: string, o: {
  chave: string; valor: Record<string, unknown> & { original: string }; dataDeVencimento: string; validadeAposVencimento?: number; devedor: Devedor;
}): Promise<CreatedCharge> {
  const txid = newTxid();
  const body = await put(url, token, `/v2/cobv/${txid}`, {
    calendario: { dataDeVencimento: o.dataDeVencimento, validadeAposVencimento: o.validadeAposVencimento ?? 30 },
    devedor: o.devedor, valor: o.valor, chave: o.chave,
  });
  return { txid, body };
}

/** Today in São Paulo, and `n` days from it. */
export const today = () => localDay(new Date());
export const daysFromToday = (n: number) => addDays(today(), n);
