// @engines sqlite: the signing key is a file beside the database's (one check opens services over a SQLite file); no money moves
import { execFileSync } from 'node:child_process';
import { X509Certificate, createHash, createPrivateKey, generateKeyPair, generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint, compactVerify, createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, errors as joseErrors, importX509 } from 'jose';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { loadPixSigningKey, pixSigningKeyPath, PIX_SIGNING_KEY_FILE } from '../../server/domain/pix-signing-key';
import { createPayloadSigner, type PayloadSigner } from '../../server/domain/pix-api/jws';
import {
  buildCobPayload,
  buildCobVPayload,
  formatValor,
  PixPayloadError,
  type CobCharge,
  type CobVCharge,
} from '../../server/domain/pix-api/payload';
import { CobPayload as CobPayloadSchema, CobVPayload as CobVPayloadSchema } from '../../contract/bcb/payload';
import { amountDue } from '../../server/domain/pix-api/due-date';
import { bcbYaml, checkBcbSchema, expectBcbResponse } from '../support/bcb-contract';
import { makeTestServices } from '../support/services';

let dir: string;
let umask: number;
/** A second RSA key (PEM) for the tests that need one besides the key under test; made once, it costs CPU. */
let spareKeyPem: string;
beforeAll(async () => {
  spareKeyPem = await new Promise<string>((resolve, reject) => {
    generateKeyPair('rsa', { modulusLength: 2048 }, (err, _publicKey, privateKey) => {
      if (err) reject(err);
      else resolve(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
    });
  });
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pix-jws-'));
  // a permissive umask, as a shell or container often has: the key file must still be 0600
  umask = process.umask(0o022);
});
afterEach(() => {
  process.umask(umask);
  rmSync(dir, { recursive: true, force: true });
});

const mode = (p: string) => statSync(p).mode & 0o777;
const TXID = 'fc9a4366ff3d4964b5dbc6c91a8722d3';

/**
 * A yaml example with its timestamps as toISOString writes them ("…18:00:00Z" → "…18:00:00.000Z"):
 * the same instant in the same RFC 3339 format, milliseconds always shown.
 */
function withIsoTimes(example: unknown): unknown {
  const e = structuredClone(example) as { calendario: Record<string, unknown> };
  for (const k of ['criacao', 'apresentacao']) e.calendario[k] = new Date(String(e.calendario[k])).toISOString();
  return e;
}

/** The yaml's payload examples (components.examples), as published. */
const yamlExample = (name: 'cobPayload1' | 'cobPayload2'): Record<string, any> => structuredClone(bcbYaml().doc.components.examples[name].value);

/**
 * The payload is what the yaml lets its location answer (ajv over the yaml's schema) and what the
 * /v2 contract declares, with nothing it does not (zod drops undeclared keys at every level: a
 * misspelt field would make the parsed copy differ).
 */
function expectValid(schema: 'CobPayload' | 'CobVPayload', payload: unknown) {
  expectBcbResponse('GET', schema === 'CobPayload' ? '/{pixUrlAccessToken}' : '/cobv/{pixUrlAccessToken}', 200, payload);
  expect((schema === 'CobPayload' ? CobPayloadSchema : CobVPayloadSchema).parse(payload)).toEqual(payload);
}

/** The data of the yaml's example cobPayload1, as a stored charge would hold it. */
const cobFromExample: CobCharge = {
  txid: TXID,
  revisao: 3,
  status: 'ATIVA',
  criacao: new Date('2020-09-15T19:39:54.013Z'),
  apresentacao: new Date('2020-04-01T18:00:00Z'),
  expiracao: 3600,
  originalCents: 50000,
  modalidadeAlteracao: 0,
  chave: '7407c9c8-f78b-11ea-adc1-0242ac120002',
  solicitacaoPagador: 'Informar cartao fidelidade',
  infoAdicionais: [{ nome: 'quantidade', valor: '2' }],
};

/** The data of the yaml's example cobPayload2, with the amounts due on the payment date asked for. */
const cobvFromExample: CobVCharge = {
  txid: TXID,
  revisao: 3,
  status: 'ATIVA',
  criacao: new Date('2020-09-15T19:39:54.013Z'),
  apresentacao: new Date('2020-04-01T18:00:00Z'),
  dataDeVencimento: '2020-12-31',
  validadeAposVencimento: 30,
  devedor: { cnpj: '56989000019533', nome: 'Empresa de Alimentos SA' },
  recebedor: { logradouro: 'Rua 20 Numero 70, Bairro Luz', cidade: 'Belo Horizonte', uf: 'MG', cep: '55120750', cnpj: '58900633120711', nome: 'Empresa de Abastecimento SA' },
  amountDue: { valor: 14045, componentes: { original: 12345, multa: 1500, juros: 200, abatimento: 0, desconto: 0 } },
  chave: '7407c9c8-f78b-11ea-adc1-0242ac120002',
  solicitacaoPagador: 'Informar cartao fidelidade',
  infoAdicionais: [{ nome: 'quantidade', valor: '2' }],
};

describe('the yaml schemas the payloads are checked against', () => {
  it('accept the yaml\'s own payload examples and refuse what the yaml forbids', () => {
    expectValid('CobPayload', yamlExample('cobPayload1'));
    expectValid('CobVPayload', yamlExample('cobPayload2'));
    const example = yamlExample('cobPayload2');
    // each of these breaks one rule of the schema: the check must see it
    const broken: Array<[string, unknown]> = [
      ['an amount without cents', { ...example, valor: { ...example.valor, final: '140.4' } }],
      ['a CPF with punctuation', { ...example, devedor: { cpf: '529.982.247-25', nome: 'Fulano' } }],
      ['a recebedor without its CEP', { ...example, recebedor: { ...example.recebedor, cep: undefined } }],
      ['no recebedor', { ...example, recebedor: undefined }],
      ['a short txid', { ...example, txid: 'abc' }],
      ['an unknown status', { ...example, status: 'PAGA' }],
      ['a date-time as dataDeVencimento', { ...example, calendario: { ...example.calendario, dataDeVencimento: '2020-12-31T00:00:00Z' } }],
    ];
    for (const [what, payload] of broken) expect(checkBcbSchema('CobVPayload', JSON.parse(JSON.stringify(payload))).ok, what).toBe(false);
    const misspelt = { ...yamlExample('cobPayload1'), valr: { original: '1.00' } };
    expect(CobPayloadSchema.parse(misspelt), 'a misspelt field').not.toEqual(misspelt);
  });
});

describe('buildCobPayload', () => {
  it('rebuilds the yaml\'s example cobPayload1 exactly from a charge\'s data', () => {
    const payload = buildCobPayload(cobFromExample);
    expect(payload).toEqual(withIsoTimes(yamlExample('cobPayload1')));
    expectValid('CobPayload', payload);
  });

  it('a minimal charge: only the required fields, no nulls; a devedor by CPF or by CNPJ', () => {
    const minimal = buildCobPayload({ ...cobFromExample, revisao: 0, modalidadeAlteracao: null, solicitacaoPagador: null, infoAdicionais: [], originalCents: 1 });
    expect(minimal).toEqual({
      calendario: { criacao: '2020-09-15T19:39:54.013Z', apresentacao: '2020-04-01T18:00:00.000Z', expiracao: 3600 },
      txid: TXID, revisao: 0, status: 'ATIVA', valor: { original: '0.01' }, chave: '7407c9c8-f78b-11ea-adc1-0242ac120002',
    });
    expectValid('CobPayload', minimal);
    for (const devedor of [{ cpf: '52998224725', nome: 'Fulano de Tal' }, { cnpj: '12ABC34501DE35', nome: 'Empresa' }] as const) {
      const payload = buildCobPayload({ ...cobFromExample, devedor, status: 'CONCLUIDA' });
      expect(payload.devedor).toEqual(devedor);
      expectValid('CobPayload', payload);
    }
  });

  it('refuses what would break the schema: both documents, a bad txid, a zero amount, no expiry', () => {
    expect(() => buildCobPayload({ ...cobFromExample, devedor: { cpf: '52998224725', cnpj: '11222333000181', nome: 'X' } as never })).toThrow(PixPayloadError);
    expect(() => buildCobPayload({ ...cobFromExample, devedor: { cpf: '529.982.247-25', nome: 'X' } })).toThrow(/exactly one of a cpf/);
    expect(() => buildCobPayload({ ...cobFromExample, txid: 'a'.repeat(25) })).toThrow(/txid/);
    expect(() => buildCobPayload({ ...cobFromExample, txid: `${'a'.repeat(25)}-x` })).toThrow(/txid/);
    expect(() => buildCobPayload({ ...cobFromExample, originalCents: 0 })).toThrow(/above zero/);
    expect(() => buildCobPayload({ ...cobFromExample, originalCents: 1.5 })).toThrow(/integer number of cents/);
    expect(() => buildCobPayload({ ...cobFromExample, expiracao: 0 })).toThrow(/expiracao/);
    expect(() => buildCobPayload({ ...cobFromExample, criacao: new Date('nope') })).toThrow(/criacao/);
  });
});

describe('buildCobVPayload', () => {
  it('rebuilds the yaml\'s example cobPayload2 exactly from a charge\'s data and the amounts due', () => {
    const payload = buildCobVPayload(cobvFromExample);
    expect(payload).toEqual(withIsoTimes(yamlExample('cobPayload2')));
    expectValid('CobVPayload', payload);
  });

  it('shows each component that applies that day, and the final amount', () => {
    const early = buildCobVPayload({ ...cobvFromExample, amountDue: { valor: 11400, componentes: { original: 12345, multa: 0, juros: 0, abatimento: 345, desconto: 600 } } });
    expect(early.valor).toEqual({ original: '123.45', abatimento: '3.45', desconto: '6.00', final: '114.00' });
    expectValid('CobVPayload', early);
    const onTime = buildCobVPayload({ ...cobvFromExample, amountDue: { valor: 12345, componentes: { original: 12345, multa: 0, juros: 0, abatimento: 0, desconto: 0 } } });
    expect(onTime.valor).toEqual({ original: '123.45', final: '123.45' });
    expectValid('CobVPayload', onTime);
  });

  it('takes the amount due as due-date.ts computes it for the DPP: 30 000.00 one day late with a 2 % fine and 1 % a month', () => {
    const valor = { original: 3_000_000, multa: { modalidade: 2 as const, valorPerc: 200 }, juros: { modalidade: 3 as const, valorPerc: 100 } };
    const calendario = { dataDeVencimento: '2025-03-10', validadeAposVencimento: 30 };
    const due = amountDue(valor, calendario, '2025-03-11');
    if (!due.payable) throw new Error('expected a payable day');
    const payload = buildCobVPayload({ ...cobvFromExample, dataDeVencimento: calendario.dataDeVencimento, amountDue: due });
    expect(payload.valor).toEqual({ original: '30000.00', multa: '600.00', juros: '10.00', final: '30610.00' });
    expectValid('CobVPayload', payload);
    const onTime = amountDue(valor, calendario, '2025-03-10');
    if (!onTime.payable) throw new Error('expected a payable day');
    expect(buildCobVPayload({ ...cobvFromExample, amountDue: onTime }).valor).toEqual({ original: '30000.00', final: '30000.00' });
  });

  it('a recebedor by CPF, a recebedor company with its trade name; the devedor without the address it may have', () => {
    const person = buildCobVPayload({
      ...cobvFromExample,
      recebedor: { logradouro: 'Rua A, 1', cidade: 'São Paulo', uf: 'SP', cep: '01001000', cpf: '11144477735', nome: 'Maria' },
      devedor: { cpf: '52998224725', nome: 'Fulano', logradouro: 'Rua B', cidade: 'X', uf: 'SP', cep: '01001000' } as never,
    });
    expect(person.recebedor).toEqual({ logradouro: 'Rua A, 1', cidade: 'São Paulo', uf: 'SP', cep: '01001000', cpf: '11144477735', nome: 'Maria' });
    expect(person.devedor).toEqual({ cpf: '52998224725', nome: 'Fulano' });
    expectValid('CobVPayload', person);
    const company = buildCobVPayload({ ...cobvFromExample, recebedor: { ...cobvFromExample.recebedor, nomeFantasia: 'Abastece' } });
    expect(company.recebedor).toMatchObject({ cnpj: '58900633120711', nomeFantasia: 'Abastece' });
    expectValid('CobVPayload', company);
  });

  it('refuses amounts that do not add up, a negative component, a bad due date or validity', () => {
    const { componentes } = cobvFromExample.amountDue;
    expect(() => buildCobVPayload({ ...cobvFromExample, amountDue: { valor: 14046, componentes } })).toThrow('payload: valor.final 14046 is not original + multa + juros − abatimento − desconto = 14045');
    expect(() => buildCobVPayload({ ...cobvFromExample, amountDue: { valor: 12445, componentes: { ...componentes, multa: -100 } } })).toThrow(PixPayloadError);
    expect(() => buildCobVPayload({ ...cobvFromExample, dataDeVencimento: '2021-02-29' })).toThrow(/dataDeVencimento/);
    expect(() => buildCobVPayload({ ...cobvFromExample, dataDeVencimento: '31/12/2020' })).toThrow(/dataDeVencimento/);
    expect(() => buildCobVPayload({ ...cobvFromExample, validadeAposVencimento: -1 })).toThrow(/validadeAposVencimento/);
    expect(() => buildCobVPayload({ ...cobvFromExample, recebedor: { ...cobvFromExample.recebedor, cnpj: '58.900.633/1207-11' } as CobVCharge['recebedor'] })).toThrow(/recebedor/);
  });
});

describe('formatValor', () => {
  it.each([[0, '0.00'], [1, '0.01'], [10, '0.10'], [12345, '123.45'], [100_000_000_000, '1000000000.00']])('%i cents → %s', (cents, text) => {
    expect(formatValor(cents)).toBe(text);
    expect(text).toMatch(/^\d{1,10}\.\d{2}$/);
  });
  it('refuses negatives, fractions and more than the ceiling', () => {
    for (const cents of [-1, 0.5, Number.NaN, 100_000_000_001, 1_000_000_000_000]) expect(() => formatValor(cents)).toThrow(PixPayloadError);
  });
});

/** The JWKS published over HTTP on 127.0.0.1, as the service will serve it (jku). */
async function publish(signer: PayloadSigner): Promise<{ jku: string; close(): Promise<void>; hits(): number }> {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    if (req.url !== '/v2/jwks') {
      res.writeHead(404).end();
      return;
    }
    hits++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(signer.publicJwks()));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { jku: `http://127.0.0.1:${port}/v2/jwks`, hits: () => hits, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** What a payer's bank does: fetch the JWKS the header's jku names and verify the signature with it. */
async function verifyAsPayerBank(jws: string) {
  const header = decodeProtectedHeader(jws);
  if (typeof header.jku !== 'string') throw new Error('no jku in the header');
  const { payload, protectedHeader } = await compactVerify(jws, createRemoteJWKSet(new URL(header.jku)), { algorithms: ['PS256', 'RS256'] });
  return { header: protectedHeader, payload: JSON.parse(new TextDecoder().decode(payload)) as unknown };
}

function b64json(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('signing the payload (JWS)', () => {
  let signer: PayloadSigner;
  let jwks: Awaited<ReturnType<typeof publish>>;
  beforeAll(async () => {
    const keyDir = mkdtempSync(join(tmpdir(), 'pix-jws-key-'));
    signer = createPayloadSigner(await loadPixSigningKey({ databasePath: join(keyDir, 'payments.db'), pem: null }));
    jwks = await publish(signer);
    return async () => {
      await jwks.close();
      rmSync(keyDir, { recursive: true, force: true });
    };
  });

  it('is a compact JWS, PS256, whose header names the key (kid) and the published JWKS (jku)', async () => {
    const jws = await signer.signPayload(buildCobPayload(cobFromExample), { jku: jwks.jku });
    expect(jws.split('.')).toHaveLength(3);
    const header = decodeProtectedHeader(jws);
    expect(header).toEqual({ alg: 'PS256', typ: 'JWS', kid: signer.kid, jku: jwks.jku });
    // kid is the key's RFC 7638 thumbprint, as jose computes it from the published JWK
    const [published] = signer.publicJwks().keys;
    expect(await calculateJwkThumbprint(published)).toBe(signer.kid);
    expect(published).toEqual({ kty: 'RSA', n: expect.stringMatching(/^[A-Za-z0-9_-]{342}$/), e: 'AQAB', kid: signer.kid, alg: 'PS256', use: 'sig' });
    // the JWKS publishes the public half only
    expect(Object.keys(published).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
  });

  it('verifies with jose against the JWKS fetched from jku, and carries the payload unchanged', async () => {
    for (const payload of [buildCobPayload(cobFromExample), buildCobVPayload(cobvFromExample)]) {
      const jws = await signer.signPayload(payload, { jku: jwks.jku });
      const verified = await verifyAsPayerBank(jws);
      expect(verified.payload).toEqual(payload);
      expect(verified.header.kid).toBe(signer.kid);
    }
    expect(jwks.hits()).toBeGreaterThan(0);
    // the payload a payer's bank reads is valid against the yaml's schema
    const jws = await signer.signPayload(buildCobVPayload(cobvFromExample), { jku: jwks.jku });
    expectValid('CobVPayload', (await verifyAsPayerBank(jws)).payload);
  });

  it('a tampered payload, header or signature fails verification', async () => {
    const payload = buildCobVPayload(cobvFromExample);
    const jws = await signer.signPayload(payload, { jku: jwks.jku });
    const [h, , s] = jws.split('.');
    const cheaper = `${h}.${b64json({ ...payload, valor: { ...payload.valor, final: '1.00' } })}.${s}`;
    await expect(verifyAsPayerBank(cheaper)).rejects.toBeInstanceOf(joseErrors.JWSSignatureVerificationFailed);
    const otherKey = `${h}.${b64json({ ...payload, chave: 'attacker@example.com' })}.${s}`;
    await expect(verifyAsPayerBank(otherKey)).rejects.toBeInstanceOf(joseErrors.JWSSignatureVerificationFailed);
    const rs256 = `${b64json({ ...decodeProtectedHeader(jws), alg: 'RS256' })}.${jws.split('.')[1]}.${s}`;
    await expect(verifyAsPayerBank(rs256)).rejects.toThrow();
    const flipped = `${jws.slice(0, -2)}${jws.endsWith('AA') ? 'BB' : 'AA'}`;
    await expect(verifyAsPayerBank(flipped)).rejects.toThrow();
    // and the untouched one still verifies
    await expect(verifyAsPayerBank(jws)).resolves.toMatchObject({ payload });
  });

  it('a payload signed by another key does not verify against this JWKS', async () => {
    const other = createPayloadSigner(await loadPixSigningKey({ databasePath: join(dir, 'other.db'), pem: spareKeyPem }));
    expect(other.kid).not.toBe(signer.kid);
    const forged = await other.signPayload(buildCobPayload(cobFromExample), { jku: jwks.jku });
    await expect(verifyAsPayerBank(forged)).rejects.toBeInstanceOf(joseErrors.JWKSNoMatchingKey);
    // even when it claims this key's kid
    const [, p, s] = forged.split('.');
    const claimed = `${b64json({ ...decodeProtectedHeader(forged), kid: signer.kid })}.${p}.${s}`;
    await expect(compactVerify(claimed, createLocalJWKSet(signer.publicJwks()))).rejects.toBeInstanceOf(joseErrors.JWSSignatureVerificationFailed);
  });

  it('refuses a jku that is not an absolute http(s) URL', async () => {
    const payload = buildCobPayload(cobFromExample);
    await expect(signer.signPayload(payload, { jku: '/v2/jwks' })).rejects.toThrow(/absolute URL/);
    await expect(signer.signPayload(payload, { jku: 'ftp://pix.example.com/jwks' })).rejects.toThrow(/https/);
  });
});

describe('the signing key', () => {
  it('is created at first use, 0600, beside the secrets key; a restart reuses it and old payloads still verify', async () => {
    const databasePath = join(dir, 'data', 'payments.db');
    const path = join(dir, 'data', PIX_SIGNING_KEY_FILE);
    expect(pixSigningKeyPath(databasePath)).toBe(path);
    const first = await loadPixSigningKey({ databasePath, pem: null });
    expect(first.origin).toEqual({ kind: 'file', path, created: true });
    expect(mode(path)).toBe(0o600);
    expect(mode(join(dir, 'data')) & 0o077).toBe(0);
    expect(readFileSync(path, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(first.privateKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(readdirSync(join(dir, 'data'))).toEqual([PIX_SIGNING_KEY_FILE]); // no temporary file left behind

    const before = createPayloadSigner(first);
    const jws = await before.signPayload(buildCobPayload(cobFromExample), { jku: 'https://pix.example.com/v2/jwks' });
    // the restart: a new process loads the same file
    const again = await loadPixSigningKey({ databasePath, pem: null });
    expect(again.origin).toEqual({ kind: 'file', path, created: false });
    const after = createPayloadSigner(again);
    expect(after.kid).toBe(before.kid);
    expect(after.publicJwks()).toEqual(before.publicJwks());
    const verified = await compactVerify(jws, createLocalJWKSet(after.publicJwks()));
    expect(verified.protectedHeader.kid).toBe(after.kid);
  });

  it('follows SECRETS_KEY_PATH: the default key file sits beside the secrets key', async () => {
    const secretsKeyPath = join(dir, 'keys', 'secrets.key');
    const key = await loadPixSigningKey({ databasePath: join(dir, 'db', 'payments.db'), secretsKeyPath, pem: null });
    expect(key.origin).toEqual({ kind: 'file', path: join(dir, 'keys', PIX_SIGNING_KEY_FILE), created: true });
    expect(mode(join(dir, 'keys', PIX_SIGNING_KEY_FILE))).toBe(0o600);
  });

  it('two processes starting together end up with one key', async () => {
    const databasePath = join(dir, 'payments.db');
    const [a, b] = await Promise.all([loadPixSigningKey({ databasePath, pem: null }), loadPixSigningKey({ databasePath, pem: null })]);
    expect([a.origin, b.origin].filter((o) => o.kind === 'file' && o.created)).toHaveLength(1);
    expect(createPayloadSigner(a).kid).toBe(createPayloadSigner(b).kid);
    expect(readdirSync(dir)).toEqual([PIX_SIGNING_KEY_FILE]);
  });

  it('a key file left readable by others is tightened to 0600 when loaded', async () => {
    const databasePath = join(dir, 'payments.db');
    const path = pixSigningKeyPath(databasePath);
    writeFileSync(path, spareKeyPem, { mode: 0o644 });
    expect(mode(path)).toBe(0o644);
    const loaded = await loadPixSigningKey({ databasePath, pem: null });
    expect(loaded.origin).toEqual({ kind: 'file', path, created: false });
    expect(mode(path)).toBe(0o600);
    expect(createPayloadSigner(loaded).kid).toBe(createPayloadSigner(await loadPixSigningKey({ databasePath, pem: spareKeyPem })).kid);
  });

  describe('given by configuration', () => {
    let pem: string;
    let configuredKid: string;
    let saved: { key?: string; path?: string };
    beforeAll(async () => {
      // PKCS#1 ("BEGIN RSA PRIVATE KEY"), as openssl's older tools write it: not only the PKCS#8 we generate
      pem = createPrivateKey(spareKeyPem).export({ type: 'pkcs1', format: 'pem' }) as string;
      expect(pem).toMatch(/^-----BEGIN RSA PRIVATE KEY-----\n/);
      configuredKid = createPayloadSigner(await loadPixSigningKey({ databasePath: '/nonexistent/x.db', pem })).kid;
      saved = { key: process.env.PIX_SIGNING_KEY, path: process.env.PIX_SIGNING_KEY_PATH };
    });
    afterEach(() => {
      for (const [name, value] of [['PIX_SIGNING_KEY', saved.key], ['PIX_SIGNING_KEY_PATH', saved.path]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });

    it('PIX_SIGNING_KEY (the PEM, also on one line with \\n) is used, and no key file is written', async () => {
      for (const text of [pem, pem.replace(/\n/g, '\\n')]) {
        process.env.PIX_SIGNING_KEY = text;
        const key = await loadPixSigningKey({ databasePath: join(dir, 'payments.db') });
        expect(key.origin).toEqual({ kind: 'env' });
        const signer = createPayloadSigner(key);
        expect(signer.kid).toBe(configuredKid);
        const jws = await signer.signPayload(buildCobPayload(cobFromExample), { jku: 'https://pix.example.com/v2/jwks' });
        expect((await compactVerify(jws, createLocalJWKSet(signer.publicJwks()))).protectedHeader.kid).toBe(configuredKid);
      }
      expect(readdirSync(dir)).toEqual([]);
    });

    it('PIX_SIGNING_KEY_PATH names a PEM file that is used as it is (through loadConfig)', async () => {
      const path = join(dir, 'etc', 'pix.pem');
      mkdirSync(join(dir, 'etc'));
      writeFileSync(path, pem, { mode: 0o600 });
      process.env.PIX_SIGNING_KEY_PATH = path;
      delete process.env.PIX_SIGNING_KEY;
      const config = loadConfig({ databasePath: join(dir, 'payments.db') });
      expect(config.pixSigningKeyPath).toBe(path);
      const key = await loadPixSigningKey({ databasePath: config.databasePath, keyPath: config.pixSigningKeyPath, secretsKeyPath: config.secretsKeyPath });
      expect(key.origin).toEqual({ kind: 'file', path, created: false });
      expect(createPayloadSigner(key).kid).toBe(configuredKid);
      expect(readFileSync(path, 'utf8')).toBe(pem);
    });

    it('the services sign with the configured key', async () => {
      process.env.PIX_SIGNING_KEY = pem;
      const s = await makeTestServices();
      try {
        const signer = await s.payloadSigner();
        expect(signer.kid).toBe(configuredKid);
        expect(await s.payloadSigner()).toBe(signer); // loaded once per process
        const jws = await signer.signPayload(buildCobVPayload(cobvFromExample), { jku: 'https://pix.example.com/v2/jwks' });
        const verified = await compactVerify(jws, createLocalJWKSet(signer.publicJwks()));
        expect(JSON.parse(new TextDecoder().decode(verified.payload))).toEqual(buildCobVPayload(cobvFromExample));
      } finally {
        await s.cleanup();
      }
    });

    it('refuses what cannot sign: not a PEM, an EC key, an RSA key under 2048 bits', async () => {
      const databasePath = join(dir, 'payments.db');
      await expect(loadPixSigningKey({ databasePath, pem: 'hello' })).rejects.toThrow(/PIX_SIGNING_KEY does not hold an unencrypted PEM private key/);
      const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
      await expect(loadPixSigningKey({ databasePath, pem: ec })).rejects.toThrow('PIX_SIGNING_KEY must hold an RSA private key of at least 2048 bits (got ec)');
      const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
      await expect(loadPixSigningKey({ databasePath, pem: small })).rejects.toThrow('PIX_SIGNING_KEY must hold an RSA private key of at least 2048 bits (got rsa 1024)');
      const file = join(dir, 'small.pem');
      writeFileSync(file, small, { mode: 0o600 });
      await expect(loadPixSigningKey({ databasePath, keyPath: file, pem: null })).rejects.toThrow(`${file} must hold an RSA private key`);
    });
  });

  describe('with a certificate chain (PIX_SIGNING_CERT_PATH)', () => {
    /** A CA and a leaf certificate for the signing key, made by the openssl command line (apart from our code). */
    function certify(keyPem: string): { chainPath: string; leafPem: string; caPem: string } {
      const at = (name: string) => join(dir, name);
      writeFileSync(at('signing.key'), keyPem, { mode: 0o600 });
      writeFileSync(at('ca.key'), generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
      const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
      openssl('req', '-x509', '-new', '-key', 'ca.key', '-subj', '/CN=Test Root CA', '-days', '2', '-sha256', '-out', 'ca.crt');
      openssl('req', '-new', '-key', 'signing.key', '-subj', '/CN=pix.example.com', '-out', 'leaf.csr');
      openssl('x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', '7', '-days', '2', '-sha256', '-out', 'leaf.crt');
      const leafPem = readFileSync(at('leaf.crt'), 'utf8');
      const caPem = readFileSync(at('ca.crt'), 'utf8');
      writeFileSync(at('chain.pem'), leafPem + caPem);
      return { chainPath: at('chain.pem'), leafPem, caPem };
    }

    it('publishes the chain (x5c) and thumbprints in the JWKS, x5t in the header, and a bank can verify through the certificate', async () => {
      const keyPem = spareKeyPem;
      const { chainPath, leafPem, caPem } = certify(keyPem);
      const key = await loadPixSigningKey({ databasePath: join(dir, 'payments.db'), pem: keyPem, certPath: chainPath });
      const signer = createPayloadSigner(key);
      const [jwk] = signer.publicJwks().keys;
      const der = (pem: string) => new X509Certificate(pem).raw;
      expect(jwk.x5c).toEqual([der(leafPem).toString('base64'), der(caPem).toString('base64')]);
      // openssl's own SHA-1 fingerprint of the leaf, as base64url: the x5t a bank compares
      const fingerprint = execFileSync('openssl', ['x509', '-in', join(dir, 'leaf.crt'), '-noout', '-fingerprint', '-sha1']).toString().trim().split('=')[1].replace(/:/g, '');
      expect(jwk.x5t).toBe(Buffer.from(fingerprint, 'hex').toString('base64url'));
      expect(jwk['x5t#S256']).toBe(createHash('sha256').update(der(leafPem)).digest('base64url'));

      const payload = buildCobVPayload(cobvFromExample);
      const jws = await signer.signPayload(payload, { jku: 'https://pix.example.com/v2/jwks' });
      expect(decodeProtectedHeader(jws)).toEqual({ alg: 'PS256', typ: 'JWS', kid: signer.kid, jku: 'https://pix.example.com/v2/jwks', x5t: jwk.x5t });
      // the bank: take the leaf from x5c, check the CA signed it, verify the JWS with the leaf's key
      const leaf = new X509Certificate(Buffer.from(jwk.x5c![0], 'base64'));
      expect(leaf.verify(new X509Certificate(Buffer.from(jwk.x5c![1], 'base64')).publicKey)).toBe(true);
      expect(leaf.subject).toBe('CN=pix.example.com');
      const leafKey = await importX509(leaf.toString(), 'PS256');
      const verified = await compactVerify(jws, leafKey);
      expect(JSON.parse(new TextDecoder().decode(verified.payload))).toEqual(payload);
    });

    it('refuses a chain whose first certificate is not the signing key\'s, and a file without certificates', async () => {
      const keyPem = spareKeyPem;
      const { leafPem, caPem } = certify(keyPem);
      writeFileSync(join(dir, 'reversed.pem'), caPem + leafPem);
      const databasePath = join(dir, 'payments.db');
      await expect(loadPixSigningKey({ databasePath, pem: keyPem, certPath: join(dir, 'reversed.pem') })).rejects.toThrow(/the first certificate is not the signing key's/);
      await expect(loadPixSigningKey({ databasePath, pem: null, certPath: join(dir, 'leaf.crt') })).rejects.toThrow(/the first certificate is not the signing key's/);
      await expect(loadPixSigningKey({ databasePath, pem: keyPem, certPath: join(dir, 'signing.key') })).rejects.toThrow(/holds no PEM certificate/);
    });
  });
});
