// The payload locations a payer's bank reads after scanning a dynamic QR code (API Pix 2.9.0,
// `GET /{pixUrlAccessToken}` and `GET /cobv/{pixUrlAccessToken}`, served at /qr/v2/…): the charge bound to
// the location, as the yaml's CobPayload or CobVPayload, signed as a compact JWS whose header names the
// JWKS this service publishes (`jku`). Open to anyone holding the URL (the token is the capability), so a
// location that shows nothing answers the same as an unknown one.
import type { PayloadChargeRow } from '../../../db/stores/pix-payloads';
import type { PixChargeKind } from '../../../contract/enums';
import { DomainError, type FieldIssue } from '../../errors';
import type { Services } from '../../services';
import { localDay } from '../local-time';
import { calendarDaysBetween, isDay } from './calendar';
import { corruptCharge, readChargeBody, type ChargeBody } from './charge-body';
import { cobvAmountDueOn } from './amount-due';
import type { PublicJwk } from './jws';
import { buildCobPayload, buildCobVPayload, type CobPayload, type CobVPayload, type PayloadPerson } from './payload';

type Deps = Pick<Services, 'db' | 'clock' | 'config' | 'payloadSigner'>;

/** Where the JWKS is published: the `jku` of every payload (DECISIONS "The Banco Central's API Pix"). */
export function jwksUrl(config: Pick<Services['config'], 'pixPublicBase'>): string {
  return `https://${config.pixPublicBase}/qr/v2/jwks`;
}

/** The query of the cobv location: the intended payment date and the payer's municipality (IBGE, 7 digits). */
export interface CobVPayloadQuery {
  DPP?: string;
  codMun?: string;
}

const notFound = () => new DomainError('NOT_FOUND', 'A cobrança em questão não foi encontrada para a location requisitada.', { problem: 'CobPayloadNaoEncontrado' });

function invalid(issues: FieldIssue[]): DomainError {
  return new DomainError('VALIDATION', issues.map((i) => `${i.path}: ${i.message}`).join('; '), { problem: 'CobPayloadOperacaoInvalida', issues });
}

/**
 * The charge a location of `kind` shows. A removed charge is not shown: the receiver withdrew it, and the
 * payload carries the devedor's name and document; a paid one is (status CONCLUIDA), as the yaml leaves
 * to the PSP, so the payer's bank can tell the payer why it cannot be paid again.
 */
async function chargeAt(s: Deps, token: string, kind: PixChargeKind): Promise<{ charge: PayloadChargeRow; body: ChargeBody }> {
  // a token is 32 lower-case hex (crypto.randomBytes(16)): anything else is not looked up
  if (!/^[0-9a-f]{32}$/.test(token)) throw notFound();
  const loc = await s.db.read.pixPayloads.byToken(token);
  const charge = loc?.charge;
  if (!loc || loc.tipoCob !== kind || !charge || charge.kind !== kind) throw notFound();
  if (charge.status !== 'ATIVA' && charge.status !== 'CONCLUIDA') throw notFound();
  return { charge, body: readChargeBody(charge) };
}

/** A devedor or recebedor as stored: checked, as a stored body is only what it was when written. */
function person(txid: string, label: string, p: { cpf?: unknown; cnpj?: unknown; nome?: unknown } | undefined): PayloadPerson {
  if (!p || typeof p.nome !== 'string') throw corruptCharge(txid, `${label} has no nome`);
  if (typeof p.cpf === 'string') return { cpf: p.cpf, nome: p.nome };
  if (typeof p.cnpj === 'string') return { cnpj: p.cnpj, nome: p.nome };
  throw corruptCharge(txid, `${label} has neither cpf nor cnpj`);
}

/** GET /qr/v2/{token}: the signed payload of the immediate charge (cob) at this location. */
export async function cobPayloadJws(s: Deps, token: string): Promise<string> {
  const { charge, body } = await chargeAt(s, token, 'cob');
  const cal = body.calendario ?? {};
  const mod = body.valor?.modalidadeAlteracao;
  const payload: CobPayload = buildCobPayload({
    txid: charge.txid,
    revisao: charge.revisao,
    status: charge.status,
    criacao: new Date(cal.criacao ?? charge.createdAt),
    apresentacao: s.clock.now(),
    // the yaml's default when a cob is created without one: 86400 s
    expiracao: cal.expiracao ?? 86_400,
    chave: charge.chave,
    devedor: body.devedor ? person(charge.txid, 'devedor', body.devedor) : null,
    originalCents: charge.amount,
    modalidadeAlteracao: mod === 0 || mod === 1 ? mod : null,
    solicitacaoPagador: body.solicitacaoPagador,
    infoAdicionais: body.infoAdicionais,
  });
  return (await s.payloadSigner()).signPayload(payload, { jku: jwksUrl(s.config) });
}

/**
 * GET /qr/v2/cobv/{token}?DPP=…&codMun=…: the signed payload of the charge with a due date at this
 * location, with the amount due on the DPP (today in São Paulo when not given). A DPP in the past, or
 * after the last day the charge can be paid, is the yaml's CobPayloadOperacaoInvalida. `codMun` is
 * checked for its form only: the calendar has no municipal holidays, so it changes no amount.
 */
export async function cobvPayloadJws(s: Deps, token: string, query: CobVPayloadQuery): Promise<string> {
  const issues: FieldIssue[] = [];
  if (query.codMun !== undefined && !/^\d{7}$/.test(query.codMun)) issues.push({ path: 'codMun', message: 'codMun não respeita o _schema_: 7 dígitos da tabela de municípios do IBGE.' });
  if (query.DPP !== undefined && !isDay(query.DPP)) issues.push({ path: 'DPP', message: 'DPP não respeita o _schema_: uma data YYYY-MM-DD.' });
  // the location is looked up first: an unknown token is not found, whatever its query
  const { charge, body } = await chargeAt(s, token, 'cobv');
  if (issues.length) throw invalid(issues);

  const now = s.clock.now();
  const today = localDay(now);
  const dpp = query.DPP ?? today;
  if (calendarDaysBetween(today, dpp) < 0) throw invalid([{ path: 'DPP', message: `DPP ${dpp} é anterior ao momento presente (${today}).` }]);

  const cal = body.calendario ?? {};
  const dataDeVencimento = charge.dueDate ?? cal.dataDeVencimento;
  if (!dataDeVencimento || !isDay(dataDeVencimento)) throw corruptCharge(charge.txid, 'no dataDeVencimento');
  const validadeAposVencimento = cal.validadeAposVencimento ?? 30;
  const due = cobvAmountDueOn({ txid: charge.txid, dueDate: dataDeVencimento, body: charge.body }, dpp);
  if (!due.payable) {
    throw invalid([{
      path: 'DPP',
      message: due.reason === 'apos-validade'
        ? `DPP ${dpp} é posterior à validade da cobrança: pode ser paga até ${due.ultimoDia} (dataDeVencimento e validadeAposVencimento).`
        : due.reason === 'antes-da-criacao' ? `DPP ${dpp} é anterior à criação da cobrança (${due.criacao}).`
          : `Em ${dpp} o valor da cobrança não cabe no formato do valor.`,
    }]);
  }

  const r = body.recebedor;
  if (!r) throw corruptCharge(charge.txid, 'a cobv has no recebedor');
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const payload: CobVPayload = buildCobVPayload({
    txid: charge.txid,
    revisao: charge.revisao,
    status: charge.status,
    criacao: new Date(cal.criacao ?? charge.createdAt),
    apresentacao: now,
    dataDeVencimento,
    validadeAposVencimento,
    chave: charge.chave,
    devedor: person(charge.txid, 'devedor', body.devedor),
    // the account's receiver data as the charge stored it (a cobv is only made once the account has it)
    recebedor: {
      ...person(charge.txid, 'recebedor', r),
      logradouro: text(r.logradouro), cidade: text(r.cidade), uf: text(r.uf), cep: text(r.cep),
      nomeFantasia: typeof r.nomeFantasia === 'string' ? r.nomeFantasia : null,
    },
    amountDue: { valor: due.valor, componentes: due.componentes },
    solicitacaoPagador: body.solicitacaoPagador,
    infoAdicionais: body.infoAdicionais,
  });
  return (await s.payloadSigner()).signPayload(payload, { jku: jwksUrl(s.config) });
}

/** GET /qr/v2/jwks: the public keys the payloads' signatures are checked with. */
export async function payloadJwks(s: Pick<Services, 'payloadSigner'>): Promise<{ keys: PublicJwk[] }> {
  return (await s.payloadSigner()).publicJwks();
}
