// Pix participants: the institutions in the BCB's list of SPI participants, so that sandbox receipts
// name a real bank and ISPB. The list is data (data/pix-participants.csv), read once on first use.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface PixParticipant {
  /** 8-digit code of the institution in the Brazilian payments system. */
  ispb: string;
  /** 3-digit bank code (COMPE). */
  compe: string;
  /** The name receipts show. */
  shortName: string;
  longName: string;
  pixParticipation: 'direct' | 'indirect';
}

const COLUMNS = ['ispb', 'compe', 'short_name', 'long_name', 'pix_participation'] as const;

/** RFC 4180 rows: fields may be quoted, and quoted fields may hold commas, quotes ("") and newlines. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const input = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < input.length; i++) {
    const c = input[i];
    if (quoted) {
      if (c === '"' && input[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c === '"') {
      quoted = true;
    } else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && input[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else {
      field += c;
    }
  }
  if (quoted) throw new Error('participants csv: a quoted field is never closed');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

function toParticipants(rows: string[][]): PixParticipant[] {
  const [header, ...data] = rows;
  if (header?.join(',') !== COLUMNS.join(',')) {
    throw new Error(`participants csv: expected the header ${COLUMNS.join(',')}`);
  }
  return data.map((cells, index) => {
    const line = index + 2;
    if (cells.length !== COLUMNS.length) {
      throw new Error(`participants csv line ${line}: expected ${COLUMNS.length} fields, got ${cells.length}`);
    }
    const [ispb, compe, shortName, longName, participation] = cells.map((cell) => cell.trim());
    if (!/^\d{8}$/.test(ispb)) throw new Error(`participants csv line ${line}: ISPB must be 8 digits`);
    if (participation !== 'direct' && participation !== 'indirect') {
      throw new Error(`participants csv line ${line}: pix_participation must be direct or indirect`);
    }
    return { ispb, compe, shortName, longName, pixParticipation: participation };
  });
}

let participants: readonly PixParticipant[] | undefined;
let byIspb: ReadonlyMap<string, PixParticipant> | undefined;

function load(): readonly PixParticipant[] {
  if (!participants) {
    const text = readFileSync(new URL('./data/pix-participants.csv', import.meta.url), 'utf8');
    const list = toParticipants(parseCsv(text)).map((p) => Object.freeze(p));
    if (list.length === 0) throw new Error('participants csv: no participants');
    participants = Object.freeze(list);
    byIspb = new Map(list.map((p) => [p.ispb, p]));
  }
  return participants;
}

/** Every participant, in the file's order (by ISPB). */
export function allParticipants(): readonly PixParticipant[] {
  return load();
}

export function participantByIspb(ispb: string): PixParticipant | undefined {
  load();
  return byIspb!.get(ispb);
}

/**
 * The sandbox's stand-in for a DICT lookup: the same key always lands at the same bank (while the
 * list is unchanged), and keys spread evenly over the list. Pass the normalised key.
 */
export function pickReceiverBank(key: string): PixParticipant {
  const list = load();
  // 48 bits of SHA-256: uniform enough over ~300 banks and still an exact JS integer.
  const hash = createHash('sha256').update(key, 'utf8').digest().readUIntBE(0, 6);
  return list[hash % list.length];
}
