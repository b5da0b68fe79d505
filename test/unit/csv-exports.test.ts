import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { csvAmount, csvField, csvRow, csvStream, csvText } from '../../server/domain/exports';
import { statementField } from '../../server/http/statement-csv';
import { FORMULA, FORMULA_PAYLOADS, formulaPieces } from '../support/csv-injection';

const read = (csv: string) => parse(csv.replace(/^\ufeff/, ''), { delimiter: ';', relax_column_count: false }) as string[][];

async function streamed(header: string[], rows: Parameters<typeof csvRow>[0][]): Promise<string> {
  const stream = csvStream(header, async () => ({ rows, nextCursor: null }));
  // decoded keeping the BOM, which Response.text() would drop
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(await new Response(stream).arrayBuffer());
}

describe('csvField', () => {
  it('quotes every text field and doubles its quotes', () => {
    expect(csvField('Maria Silva')).toBe('"Maria Silva"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('')).toBe('""');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
  });

  it('puts a quote before a formula character at the start (= + - @ TAB CR)', () => {
    for (const c of ['=', '+', '-', '@', '\t', '\r']) expect(csvField(`${c}1+1`)).toBe(`"'${c}1+1"`);
    // a phone Pix key reads as text, not as a sum
    expect(csvField('+55 11 98765-4321')).toBe(`"'+55 11 98765-4321"`);
  });

  it('puts a quote after a separator, line break or quote that comes before a formula character', () => {
    expect(csvText('Ana Souza,=HYPERLINK(x),')).toBe("Ana Souza,'=HYPERLINK(x),");
    expect(csvText('a;+1')).toBe("a;'+1");
    expect(csvText('a\t-1')).toBe("a\t'-1");
    expect(csvText('a\n@x')).toBe("a\n'@x");
    expect(csvText('a"=1')).toBe('a"\'=1');
    // a run of them: a quote after each, so whichever one a reader splits on, the piece starts with a quote
    expect(csvText('a,\t=1')).toBe("a,'\t'=1");
    expect(csvText('\t=1')).toBe("'\t'=1");
    // text that begins no formula is unchanged
    for (const s of ['Zélia Gonçalves', 'pedido-8841', 'a, b; c', "O'Brien", 'maria@example.com', 'a - b', '1.234,56']) expect(csvText(s)).toBe(s);
  });

  it('leaves numbers bare: a JavaScript number and an amount', () => {
    expect(csvField(2500)).toBe('2500');
    expect(csvField(-12)).toBe('-12');
    expect(csvField(Number.NaN)).toBe('');
    expect(csvField(csvAmount(123_456))).toBe('1234,56');
    expect(csvField(csvAmount(5))).toBe('0,05');
    expect(csvField(csvAmount(-1_050))).toBe('-10,50');
    expect(() => csvAmount(1.5)).toThrow(RangeError);
  });
});

describe('a CSV export of the formula corpus', () => {
  it(`holds ${FORMULA_PAYLOADS.length} payloads behind commas, semicolons, tabs, line breaks and quotes`, () => {
    expect(FORMULA_PAYLOADS.length).toBeGreaterThanOrEqual(20);
  });

  it('reads back through a CSV parser as the neutralised text, one cell per field, none beginning a formula', async () => {
    const header = ['criada_em', 'id', 'valor', 'cliente', 'referencia_externa'];
    const rows = FORMULA_PAYLOADS.map((p, i) => ['2026-01-15 09:30:00', `txn_${i}`, csvAmount(123_45 + i), p, p]);
    const text = await streamed(header, rows);
    expect(text.startsWith('\ufeff')).toBe(true);
    const cells = read(text);
    expect(cells[0]).toEqual(header);
    expect(cells).toHaveLength(FORMULA_PAYLOADS.length + 1);
    FORMULA_PAYLOADS.forEach((p, i) => {
      expect(cells[i + 1]).toEqual(['2026-01-15 09:30:00', `txn_${i}`, csvAmount(123_45 + i).number, csvText(p), csvText(p)]);
      // the neutralised text is the payload with quotes added only: nothing the merchant typed is lost
      expect(csvText(p).replace(/'/g, '')).toBe(p.replace(/'/g, ''));
    });
    for (const cell of cells.flat()) expect(cell).not.toMatch(FORMULA);
  });

  it('gives a naive reader (splitting lines on , ; or TAB) no piece that begins a formula', async () => {
    const rows = FORMULA_PAYLOADS.map((p) => [p, csvAmount(2_500), p]);
    const text = await streamed(['cliente', 'valor', 'chave'], rows);
    expect(formulaPieces(text)).toEqual([]);
    // and the same check would have caught the finding before the fix
    expect(formulaPieces(`${['Ana Souza,=HYPERLINK(x),', '1,00'].join(';')}\r\n`)).toContain('=HYPERLINK(x)');
  });

  it('each payload alone, as a whole line, gives the naive reader nothing either', () => {
    for (const p of FORMULA_PAYLOADS) expect(formulaPieces(csvRow([p]))).toEqual([]);
  });
});

describe('the statement CSV (comma-separated, server text)', () => {
  it('neutralises its text the same way and leaves plain ids and signed cents bare', () => {
    expect(statementField('le_123')).toBe('le_123');
    expect(statementField(-2500)).toBe('-2500');
    for (const p of FORMULA_PAYLOADS) {
      const line = `${['le_1', p, -2500, p].map(statementField).join(',')}\r\n`;
      const [cells] = parse(line) as string[][];
      expect(cells).toEqual(['le_1', csvText(p), '-2500', csvText(p)]);
      // a negative amount is a number, not a formula: the only piece allowed to start with "-"
      expect(formulaPieces(line).filter((x) => x !== '-2500')).toEqual([]);
    }
  });
});
