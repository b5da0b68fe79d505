import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvText } from '../../server/domain/exports';
import { FORMULA, FORMULA_PAYLOADS, formulaPieces } from '../support/csv-injection';
import { accessToken, api, removeDir, SERVER_TEST_TIMEOUT_MS, startServer, type RunningServer } from '../support/server';
import { txBody } from '../support/transactions';
import { phoneWithdrawal } from '../support/withdrawals';

/**
 * CSV exports cannot carry a spreadsheet formula (CSV injection), through the real export path: formulas
 * typed into a charge's customer name and external reference and a withdrawal's recipient name and external
 * reference, downloaded from the dashboard's CSV exports (GET /transactions/export, /withdrawals/export)
 * and read back as a spreadsheet would (csv-parse) and as a naive script would (split on , ; TAB).
 */

let srv: RunningServer;
let cookie: string;
let token: string;

beforeAll(async () => {
  srv = await startServer({ pages: true });
  token = await accessToken(srv.url, srv.demo.code, srv.demo.token);
  const signIn = await fetch(`${srv.url}/api/trpc/session.signIn`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: srv.demo.email, password: srv.demo.password }),
  });
  expect(signIn.status).toBe(200);
  cookie = signIn.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
}, SERVER_TEST_TIMEOUT_MS);
afterAll(async () => {
  await srv?.stop();
  if (srv) removeDir(srv.dir);
});

/** The export's text as downloaded (BOM kept) and its cells as csv-parse reads them. */
async function download(path: string): Promise<{ text: string; rows: Record<string, string>[] }> {
  const res = await fetch(`${srv.url}${path}`, { headers: { cookie } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer());
  expect(text.startsWith('\ufeff')).toBe(true);
  const rows = parse(text, { bom: true, delimiter: ';', columns: true }) as Record<string, string>[];
  return { text, rows };
}

/** What the API stored: its text fields are trimmed. */
const stored = (p: string) => p.trim();

describe('the CSV exports read back safely', () => {
  it(`transactions: ${FORMULA_PAYLOADS.length} formulas in the customer name and the external reference`, async () => {
    const ids = new Map<string, string>();
    for (const [i, p] of FORMULA_PAYLOADS.entries()) {
      const res = await api(srv.url, '/transaction', { token, body: txBody('PIX', { externalRef: p, customer: { ...txBody().customer, name: p } }) });
      expect(res.status, `charge ${i}: ${res.text}`).toBe(201);
      ids.set(res.json.id, p);
    }
    const { text, rows } = await download('/transactions/export');
    expect(rows).toHaveLength(FORMULA_PAYLOADS.length);
    for (const row of rows) {
      const p = ids.get(row.id)!;
      expect(p, row.id).toBeDefined();
      expect(row.cliente).toBe(csvText(stored(p)));
      expect(row.referencia_externa).toBe(csvText(stored(p)));
      expect(row.valor).toBe('25,00');
      for (const cell of Object.values(row)) expect(cell).not.toMatch(FORMULA);
    }
    expect(formulaPieces(text)).toEqual([]);
    // the amount stays a bare number, text is quoted
    expect(text).toMatch(/;"Pix";25,00;"/);
  }, SERVER_TEST_TIMEOUT_MS);

  it(`withdrawals: ${FORMULA_PAYLOADS.length} formulas in details.name and external_ref`, async () => {
    const batches = new Map<string, string>();
    for (const [i, p] of FORMULA_PAYLOADS.entries()) {
      const res = await api(srv.url, '/withdraw/pix', { token, body: phoneWithdrawal({ external_ref: p, details: { name: p, document: '11.222.333/0001-81' } }) });
      expect(res.status, `withdrawal ${i}: ${res.text}`).toBe(201);
      batches.set(res.json.data.map((d: { identifier: string }) => d.identifier).join(' '), p);
    }
    const { text, rows } = await download('/withdrawals/export');
    expect(rows).toHaveLength(FORMULA_PAYLOADS.length);
    for (const row of rows) {
      const p = batches.get(row.lotes)!;
      expect(p, row.lotes).toBeDefined();
      expect(row.recebedor).toBe(csvText(stored(p)));
      expect(row.referencia_externa).toBe(csvText(stored(p)));
      expect(row.valor).toBe('10,00');
      // the phone key reads as text, not as a sum
      expect(row.chave).toMatch(/^'\+55/);
      for (const cell of Object.values(row)) expect(cell).not.toMatch(FORMULA);
    }
    expect(formulaPieces(text)).toEqual([]);
  }, SERVER_TEST_TIMEOUT_MS);
});
