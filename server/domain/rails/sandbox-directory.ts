// The sandbox's key directory: a stand-in for the DICT that answers every well-formed key with a
// plausible holder, computed from a hash of the key, so the same key always gives the same holder and
// bank (across restarts and machines) and nothing has to be stored.
import { createHash } from 'node:crypto';
import { cnpjWithCheckDigits, cpfWithCheckDigits } from '../pix/documents';
import type { PixKeyType } from '../pix/keys';
import { pickReceiverBank } from '../pix/participants';
import type { PixKeyEntry } from './rail';

/** Magic EMAIL key of docs/decisions.md "Pix key lookup and receipts": not in the directory. */
export const SANDBOX_UNKNOWN_KEY = 'unknown@sandbox.test';

// first and middle names go together by gender: no "Gustavo Aparecida"
const NAMES = {
  female: {
    first: ['Ana', 'Maria', 'Juliana', 'Fernanda', 'Camila', 'Beatriz', 'Larissa', 'Patrícia', 'Aline', 'Letícia',
      'Mariana', 'Gabriela', 'Renata', 'Luana', 'Sabrina', 'Vitória', 'Tatiane', 'Raquel', 'Simone', 'Helena'],
    middle: ['Aparecida', 'Cristina', 'Luiza', 'Beatriz', 'Helena', 'Vitória', 'Eduarda', 'Clara', 'Fernanda', 'Paula'],
  },
  male: {
    first: ['João', 'José', 'Pedro', 'Lucas', 'Gabriel', 'Rafael', 'Bruno', 'Thiago', 'Felipe', 'Gustavo',
      'Mateus', 'Rodrigo', 'Eduardo', 'Marcelo', 'Leandro', 'Diego', 'Vinícius', 'André', 'Carlos', 'Antônio'],
    middle: ['Henrique', 'Augusto', 'Vitor', 'Gabriel', 'Eduardo', 'Luiz', 'Miguel', 'Paulo', 'Carlos', 'Antônio'],
  },
} as const;
const SURNAMES = [
  'Silva', 'Santos', 'Oliveira', 'Souza', 'Rodrigues', 'Ferreira', 'Alves', 'Pereira', 'Lima', 'Gomes',
  'Costa', 'Ribeiro', 'Martins', 'Carvalho', 'Almeida', 'Lopes', 'Soares', 'Fernandes', 'Vieira', 'Barbosa',
  'Rocha', 'Dias', 'Nascimento', 'Andrade', 'Moreira', 'Nunes', 'Marques', 'Machado', 'Mendes', 'Freitas',
  'Cardoso', 'Ramos', 'Gonçalves', 'Santana', 'Teixeira', 'Araújo', 'Moura', 'Cavalcanti', 'Monteiro', 'Batista',
];
const TRADES = [
  'Comércio de Alimentos', 'Materiais de Construção', 'Tecnologia', 'Serviços Médicos', 'Transportes',
  'Distribuidora', 'Confecções', 'Engenharia', 'Consultoria', 'Padaria e Confeitaria', 'Auto Peças',
  'Farmácia', 'Papelaria', 'Produtos Agrícolas', 'Educação', 'Logística',
];
const COMPANY_FORMS = ['Ltda', 'Ltda', 'Ltda', 'S.A.', 'ME', 'EIRELI'];

/** A reader of the key's hash: each call takes the next bytes as a number and picks with it. */
function hashStream(keyType: PixKeyType, key: string) {
  const bytes = createHash('sha256').update(`sandbox-dict:${keyType}:${key}`, 'utf8').digest();
  let at = 0;
  const next = (): number => {
    // 32 bytes give 16 two-byte draws; a name and a document need fewer
    const v = bytes.readUInt16BE(at % 32);
    at += 2;
    return v;
  };
  return {
    pick: <T>(list: readonly T[]): T => list[next() % list.length],
    digits: (n: number): string => Array.from({ length: n }, () => String(next() % 10)).join(''),
    chance: (inN: number): boolean => next() % inN === 0,
  };
}

type Stream = ReturnType<typeof hashStream>;

function personName(h: Stream): string {
  const names = h.chance(2) ? NAMES.female : NAMES.male;
  const first = h.pick(names.first);
  const middle = h.pick(names.middle);
  const surnames = [h.pick(SURNAMES), h.pick(SURNAMES)];
  // no "Gabriel Gabriel" or "Silva Silva"
  const name = [first, middle === first ? null : middle, surnames[0], surnames[1] === surnames[0] ? null : surnames[1]];
  return name.filter(Boolean).join(' ');
}

function companyName(h: Stream): string {
  const a = h.pick(SURNAMES);
  const b = h.pick(SURNAMES);
  const owners = a === b ? a : `${a} & ${b}`;
  return `${owners} ${h.pick(TRADES)} ${h.pick(COMPANY_FORMS)}`;
}

function cpfFrom(h: Stream): string {
  let base = h.digits(9);
  // a repeated digit is never issued (and fails our own check): make it a real-looking one
  if (/^(\d)\1{8}$/.test(base)) base = `${(Number(base[0]) + 1) % 10}${base.slice(1)}`;
  return cpfWithCheckDigits(base);
}

function cnpjFrom(h: Stream): string {
  // a head office: eight digits of the company, then branch 0001
  let root = h.digits(8);
  if (/^0{8}$/.test(root)) root = '10000000';
  return cnpjWithCheckDigits(`${root}0001`);
}

/**
 * The directory entry of a normalised key, or null for the magic unknown key. A CPF or CNPJ key belongs
 * to that document; any other key belongs to a person (four in five) or a company, all from the hash.
 * The bank is the one sandbox payments of the key have always landed at (pickReceiverBank).
 */
export function sandboxDirectoryEntry(keyType: PixKeyType, key: string): PixKeyEntry | null {
  if (keyType === 'EMAIL' && key === SANDBOX_UNKNOWN_KEY) return null;
  const h = hashStream(keyType, key);
  let holder: PixKeyEntry['holder'];
  if (keyType === 'CPF') holder = { name: personName(h), document: key };
  else if (keyType === 'CNPJ') holder = { name: companyName(h), document: key };
  else if (h.chance(5)) holder = { name: companyName(h), document: cnpjFrom(h) };
  else holder = { name: personName(h), document: cpfFrom(h) };
  const bank = pickReceiverBank(key);
  return { key, keyType, holder, bank: { name: bank.shortName, ispb: bank.ispb } };
}
