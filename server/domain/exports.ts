// CSV of a filtered list, for a spreadsheet opened in Brazil: semicolons, decimal commas, UTF-8 with
// a BOM (so Excel reads the accents), times in Brasília. Rows come in keyset pages, never all at once.

/** One CSV field: quoted when it holds a separator, a quote or a line break; a formula-looking text is defused. */
export function csvField(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '';
  let s = String(v);
  // a cell starting with = + - @ would run as a formula in a spreadsheet
  if (/^[=+\-@]/.test(s) && typeof v === 'string') s = `'${s}`;
  return /[;"\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const csvRow = (fields: (string | number | null | undefined)[]) => `${fields.map(csvField).join(';')}\r\n`;

/** 123456 → "1234,56" (no currency sign, no thousands dots: a number to a spreadsheet). */
export function csvAmount(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)},${String(abs % 100).padStart(2, '0')}`;
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
export function csvStream(header: string[], nextPage: (cursor: string | null) => Promise<{ rows: string[][]; nextCursor: string | null }>): ReadableStream<Uint8Array> {
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
