// CSV of a filtered list, for a spreadsheet opened in Brazil: semicolons, decimal commas, UTF-8 with
// a BOM (so Excel reads the accents), times in Brasília. Rows come in keyset pages, never all at once.

/**
 * A cell: text (quoted and neutralised), or a number the spreadsheet must read as one (left bare):
 * a JavaScript number, or `{ number }` as csvAmount writes it ("1234,56"). Plain data, not a class:
 * the route that makes the rows and the stream that writes them may be bundled apart (app/ under Next).
 */
export type CsvCell = string | number | { number: string } | null | undefined;

/** What a spreadsheet runs as a formula when a cell starts with it (OWASP CSV injection: = + - @ TAB CR). */
export const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * Text as it must read in a cell: a quote goes before a formula character at the start, and also
 * after every character where a reader could start a new cell (, ; TAB for whichever separator it
 * guesses, CR and LF for one that splits lines without honouring quotes, and " for one that strips
 * them), so no piece of a naive split begins a formula. The lookahead lets a run such as ",\t=" get a
 * quote after each character of it; the start is done apart because a match there would be empty and
 * the global replace would then step over a TAB or CR in first place.
 */
export function csvText(s: string): string {
  const inside = s.replace(/[,;\t\r\n"](?=[=+\-@\t\r])/g, "$&'");
  return FORMULA_START.test(inside) ? `'${inside}` : inside;
}

/** One CSV field: text always quoted (quotes doubled) and neutralised; numbers bare. */
export function csvField(v: CsvCell): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  if (typeof v === 'object') return v.number;
  return `"${csvText(v).replace(/"/g, '""')}"`;
}

export const csvRow = (fields: CsvCell[]) => `${fields.map(csvField).join(';')}\r\n`;

/**
 * 123456 → 1234,56 (no currency sign, no thousands dots: a number to a spreadsheet, so left unquoted).
 * A negative amount keeps its minus: a bare number is not a formula, and the exports' amounts (a
 * charge's total, a withdrawal's amount) are positive anyway.
 */
export function csvAmount(cents: number): { number: string } {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`csvAmount: ${cents} is not a whole number of cents`);
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return { number: `${sign}${Math.floor(abs / 100)},${String(abs % 100).padStart(2, '0')}` };
}

const brasilia = new Intl.DateTimeFormat('sv-SE', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** An instant as "2026-01-15 09:30:00", Brasília time. */
export function csvTime(iso: string | null): string {
  return iso ? brasilia.format(new Date(iso)) : '';
}

/**
 * A stream of CSV text: the header, then every page `nextPage` returns until it says there is no more.
 * Pulled by the reader, so a slow download never holds more than one page in memory.
 */
export function csvStream(header: string[], nextPage: (cursor: string | null) => Promise<{ rows: CsvCell[][]; nextCursor: string | null }>): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let cursor: string | null = null;
  let started = false;
  let done = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(enc.encode(`\ufeff${csvRow(header)}`));
        return;
      }
      // a pull must enqueue or close: one that does neither is never called again, and the download
      // hangs (an export whose search matched nothing did), so an empty page goes on to the next
      for (;;) {
        if (done) { controller.close(); return; }
        const page = await nextPage(cursor);
        cursor = page.nextCursor;
        if (!cursor) done = true;
        if (page.rows.length) { controller.enqueue(enc.encode(page.rows.map(csvRow).join(''))); return; }
      }
    },
  });
}
