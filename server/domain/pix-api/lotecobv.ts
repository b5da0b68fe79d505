// The lotes of cobv of the API Pix (/v2/lotecobv): many charges with a due date created (PUT) or revised
// (PATCH) by one request, each by the same rules as PUT and PATCH /cobv/{txid} (charges.ts), each with
// what became of it: CRIADA, or NEGADA with the problem a refused PUT/PATCH /cobv would have answered.
// Processed synchronously, in one write job: no charge of a lote is ever EM_PROCESSAMENTO.
import type { LoteCobVConsulta, LoteCobVConsultado, LoteCobVRevisado, LoteCobVSolicitado, LotesCobVConsultados, Problema } from '../../../contract/bcb';
import type { Stores } from '../../../db';
import type { PixCobvBatchItemRow, PixCobvBatchRow } from '../../../db/stores/pix-lotecobv';
import { DomainError, type FieldIssue } from '../../errors';
import type { Services } from '../../services';
import { localDay } from '../local-time';
import { cobvTerms, insertCobvInJob, reviseCobvInJob, type CobvTerms } from './charges';
import { problemBody } from './problem';

type Deps = Pick<Services, 'db' | 'clock' | 'config'>;

/** How a charge of a lote is judged: as PUT/PATCH /cobv would, its properties named under `cobv`. */
const COBV_ROUTE = { invalid: 'CobVOperacaoInvalida', resource: 'cobv' } as const;

/** The lote's id as the path gives it (the yaml: text; its answers: an int64): a positive integer JavaScript holds exactly. */
const LOTE_ID = /^[1-9][0-9]{0,14}$/;

function refused(issues: FieldIssue[]): DomainError {
  return new DomainError('VALIDATION', issues.map((i) => `${i.path}: ${i.message}`).join('; '), { issues, problem: 'LoteCobVOperacaoInvalida' });
}

const notFound = () => new DomainError('NOT_FOUND', 'Lote não encontrado para o id informado.', { problem: 'LoteCobVNaoEncontrado' });

/** The id of an existing lote, or not found (one that cannot be an id is not found either, as the yaml's GET has no 400 for it). */
function existingId(id: string): number {
  if (!LOTE_ID.test(id)) throw notFound();
  return Number(id);
}

/** A txid named twice in one lote: the lote names each charge once. */
function duplicateTxids(items: { txid: string }[]): FieldIssue[] {
  const seen = new Set<string>();
  return items.flatMap((c, i) => {
    if (!seen.has(c.txid)) { seen.add(c.txid); return []; }
    return [{ path: `cobsv.${i}.txid`, message: 'o txid já consta de outra cobrança deste lote' }];
  });
}

/** A charge refused as PUT/PATCH /cobv would refuse it, as the yaml's `problema`; anything else is not a refusal and fails the lote. */
function problemaOf(err: unknown, input: unknown, correlationId: string | null): Problema {
  if (!(err instanceof DomainError) || err.status >= 500) throw err;
  return problemBody(err, COBV_ROUTE, { input, ...(correlationId ? { correlationId } : {}) });
}

type Outcome = Pick<PixCobvBatchItemRow, 'status' | 'problema'>;
const negada = (p: Problema): Outcome => ({ status: 'NEGADA', problema: JSON.stringify(p) });

/** PUT /lotecobv/{id}: the lote and each of its charges; a charge refused is NEGADA and the others are created. */
export async function createLote(s: Deps, accountId: string, input: LoteCobVSolicitado & { id: string }): Promise<void> {
  const id = Number(input.id);
  const dup = duplicateTxids(input.cobsv);
  if (dup.length) throw refused(dup);
  // each charge's terms read before the job, as PUT /cobv does; a refusal here is that charge's alone
  const today = localDay(s.clock.now());
  const prepared = input.cobsv.map((item): { item: typeof item; terms: CobvTerms } | { item: typeof item; err: unknown } => {
    try { return { item, terms: cobvTerms(item, today) }; } catch (err) { return { item, err }; }
  });
  await s.db.write(async (tx) => {
    await tx.pixLoteCobv.lockLote(accountId, id, input.cobsv.map((c) => ({ txid: c.txid, locIds: c.loc ? [c.loc.id] : [] })));
    if (await tx.pixLoteCobv.lote(accountId, id)) {
      await alterLote(tx, s, accountId, id, input, prepared);
      return;
    }
    const criacao = s.clock.now().toISOString();
    await tx.pixLoteCobv.insertLote({ accountId, id, descricao: input.descricao, createdAt: criacao, updatedAt: criacao });
    const items: PixCobvBatchItemRow[] = [];
    for (const p of prepared) {
      const base = { accountId, batchId: id, txid: p.item.txid };
      if ('err' in p) { items.push({ ...base, ...negada(problemaOf(p.err, p.item, tx.requestId)), createdAt: criacao }); continue; }
      try {
        // every refusal of insertCobvInJob comes before its first write: a charge refused leaves nothing behind
        const cobv = await insertCobvInJob(tx, s.clock.now(), s.config, accountId, p.item, p.terms, id);
        items.push({ ...base, status: 'CRIADA', problema: null, createdAt: cobv.calendario.criacao });
      } catch (err) {
        items.push({ ...base, ...negada(problemaOf(err, p.item, tx.requestId)), createdAt: criacao });
      }
    }
    await tx.pixLoteCobv.insertItems(items);
  });
}

/**
 * PUT /lotecobv/{id} of a lote that exists: the yaml's alteration in lote. The array must name exactly the
 * charges of the original request (none added, none left out), else 400 and nothing changes; each charge the
 * lote created is revised with the whole request given for it (as PATCH /cobv would, by its rules), and each
 * refused at creation is tried again. Each item's status says what became of it.
 */
async function alterLote(
  tx: Stores, s: Deps, accountId: string, id: number, input: LoteCobVSolicitado,
  prepared: ({ item: LoteCobVSolicitado['cobsv'][number]; terms: CobvTerms } | { item: LoteCobVSolicitado['cobsv'][number]; err: unknown })[],
): Promise<void> {
  const items = new Map((await tx.pixLoteCobv.items(accountId, [id])).map((i) => [i.txid, i]));
  const named = new Set(input.cobsv.map((c) => c.txid));
  if (named.size !== items.size || [...named].some((t) => !items.has(t))) {
    throw refused([{ path: 'cobsv', message: 'a alteração de um lote lista exatamente as cobranças da requisição que o criou: nenhuma a mais, nenhuma a menos' }]);
  }
  const now = s.clock.now().toISOString();
  await tx.pixLoteCobv.updateLote(accountId, id, { descricao: input.descricao, updatedAt: now });
  for (const p of prepared) {
    let outcome: Outcome;
    try {
      if ('err' in p) throw p.err;
      const charge = await tx.pixCharges.chargeByTxid(accountId, p.item.txid);
      if (charge && charge.batchId === id) {
        const { txid, ...revision } = p.item;
        await reviseCobvInJob(tx, s.clock.now(), s.config, accountId, { ...revision, txid });
      } else {
        // refused when the lote was created: created now if it passes, by the same rules
        await insertCobvInJob(tx, s.clock.now(), s.config, accountId, p.item, p.terms, id);
      }
      outcome = { status: 'CRIADA', problema: null };
    } catch (err) {
      outcome = negada(problemaOf(err, p.item, tx.requestId));
    }
    await tx.pixLoteCobv.updateItem(accountId, id, p.item.txid, outcome);
  }
}

/** PATCH /lotecobv/{id}: revises the charges listed, each by PATCH /cobv's rules; each item's status says what became of its revision. */
export async function reviseLote(s: Deps, accountId: string, input: LoteCobVRevisado & { id: string }): Promise<void> {
  const id = existingId(input.id);
  const cobsv = input.cobsv ?? [];
  const dup = duplicateTxids(cobsv);
  if (dup.length) throw refused(dup);
  await s.db.write(async (tx) => {
    await tx.pixLoteCobv.lockLote(accountId, id, cobsv.map((c) => ({ txid: c.txid, locIds: c.loc ? [c.loc.id] : [] })));
    const lote = await tx.pixLoteCobv.lote(accountId, id);
    if (!lote) throw notFound();
    const items = new Map((await tx.pixLoteCobv.items(accountId, [id])).map((i) => [i.txid, i]));
    const strangers = cobsv.flatMap((c, i) => (items.has(c.txid) ? [] : [{ path: `cobsv.${i}.txid`, message: 'a cobrança não consta deste lote' }]));
    if (strangers.length) throw refused(strangers);
    const now = s.clock.now().toISOString();
    if (input.descricao !== undefined) await tx.pixLoteCobv.updateLote(accountId, id, { descricao: input.descricao, updatedAt: now });
    for (const { txid, ...revision } of cobsv) {
      let outcome: Outcome;
      // only a charge this lote created: a txid refused at creation may name a charge of its own
      const charge = await tx.pixCharges.chargeByTxid(accountId, txid);
      try {
        if (!charge || charge.batchId !== id) throw new DomainError('NOT_FOUND', 'Cobrança com vencimento não encontrada para o txid informado.', { problem: 'CobVNaoEncontrada' });
        await reviseCobvInJob(tx, s.clock.now(), s.config, accountId, { ...revision, txid });
        outcome = { status: 'CRIADA', problema: null };
      } catch (err) {
        outcome = negada(problemaOf(err, revision, tx.requestId));
      }
      await tx.pixLoteCobv.updateItem(accountId, id, txid, outcome);
    }
  });
}

function loteView(lote: PixCobvBatchRow, items: PixCobvBatchItemRow[]): LoteCobVConsultado {
  return {
    id: lote.id,
    descricao: lote.descricao,
    criacao: lote.createdAt,
    cobsv: items.map((i) => ({
      txid: i.txid,
      status: i.status,
      ...(i.problema !== null ? { problema: JSON.parse(i.problema) as Problema } : {}),
      // a charge refused at creation was never created
      ...(i.status === 'CRIADA' ? { criacao: i.createdAt } : {}),
    })),
  };
}

/** GET /lotecobv/{id}. */
export async function getLote(s: Pick<Services, 'db'>, accountId: string, idText: string): Promise<LoteCobVConsultado> {
  const id = existingId(idText);
  return s.db.read.snapshot(async (tx: Stores) => {
    const lote = await tx.pixLoteCobv.lote(accountId, id);
    if (!lote) throw notFound();
    return loteView(lote, await tx.pixLoteCobv.items(accountId, [id]));
  });
}

/** GET /lotecobv: the account's lotes created in [inicio, fim], a page of them. */
export async function listLotes(s: Pick<Services, 'db'>, accountId: string, q: LoteCobVConsulta): Promise<LotesCobVConsultados> {
  const paginaAtual = q['paginacao.paginaAtual'];
  const itensPorPagina = q['paginacao.itensPorPagina'];
  return s.db.read.snapshot(async (tx: Stores) => {
    const { rows, total } = await tx.pixLoteCobv.listLotes(accountId, new Date(q.inicio).toISOString(), new Date(q.fim).toISOString(), { offset: paginaAtual * itensPorPagina, limit: itensPorPagina });
    const items = await tx.pixLoteCobv.items(accountId, rows.map((r) => r.id));
    return {
      parametros: {
        inicio: q.inicio, fim: q.fim,
        paginacao: { paginaAtual, itensPorPagina, quantidadeDePaginas: Math.max(1, Math.ceil(total / itensPorPagina)), quantidadeTotalDeItens: total },
      },
      lotes: rows.map((r) => loteView(r, items.filter((i) => i.batchId === r.id))),
    };
  });
}
