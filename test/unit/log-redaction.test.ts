import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, scrubSecrets } from '../../server/log';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({ write(chunk, _enc, cb) { lines.push(chunk.toString()); cb(); } });
  return { lines, logger: createLogger({ level: 'trace', destination: stream as never }) };
}

const SECRETS = {
  bearer: 'at_9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm',
  clientToken: 'sk_Zx1Cv2Bn3Mm4Ll5Kk6Jj7Hh8Gg9Ff0DdSsAa',
  apiKey: 'pk_abcdefghij0123456789klmn',
  password: 'hunter2-but-longer-than-ten',
  card: '4111111111111111',
  cvv: '737',
  whsec: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw7Jx2Xz/FtmA=',
};

describe('log redaction', () => {
  it('redacts secret fields wherever they are nested, headers included', () => {
    const { lines, logger } = capture();
    logger.info({
      req: { headers: { authorization: `Bearer ${SECRETS.bearer}`, 'x-token': SECRETS.bearer, 'x-api-key': SECRETS.apiKey, cookie: 'ses=abc' } },
      body: { code: 'cli_x', token: SECRETS.clientToken, password: SECRETS.password, card: { number: SECRETS.card, cvv: SECRETS.cvv } },
      webhook: { secret: SECRETS.whsec },
    }, 'a request');
    const out = lines.join('');
    for (const s of Object.values(SECRETS)) expect(out).not.toContain(s);
    expect(out).toContain('[REDACTED]');
    expect(JSON.parse(out).body.code).toBe('cli_x'); // a public identifier stays readable
  });

  it('redacts the password change\'s new password and a revealed postback secret', () => {
    const { lines, logger } = capture();
    logger.info({ input: { password: SECRETS.password, new_password: 'a brand new secret' }, answer: { postback_secret: SECRETS.whsec } }, 'a call');
    const out = lines.join('');
    for (const s of [SECRETS.password, 'a brand new secret', SECRETS.whsec]) expect(out).not.toContain(s);
  });

  it('masks secrets inside error messages and stacks (free text), and card numbers by their Luhn shape', () => {
    const { lines, logger } = capture();
    const err = new Error(`upstream refused card ${SECRETS.card} with Authorization: Bearer ${SECRETS.bearer}; secret ${SECRETS.whsec}; token ${SECRETS.clientToken}`);
    logger.error({ err }, `failed for ${SECRETS.apiKey}`);
    const out = lines.join('');
    for (const s of [SECRETS.card, SECRETS.bearer, SECRETS.whsec, SECRETS.clientToken, SECRETS.apiKey]) expect(out).not.toContain(s);
    expect(JSON.parse(out).err.type).toBe('Error');
  });

  it('leaves ordinary numbers and ids alone', () => {
    // 13+ digits that fail Luhn (an amount, a timestamp) and prefixed ids are not secrets
    expect(scrubSecrets('{"amount":1234567890123,"ts":1795400252999,"id":"wd_0mwsnldtlub1fcw71q37"}'))
      .toBe('{"amount":1234567890123,"ts":1795400252999,"id":"wd_0mwsnldtlub1fcw71q37"}');
    expect(scrubSecrets('card 4111 1111 1111 1111 end')).toBe('card [REDACTED] end');
  });

  it('honours the level it is given', () => {
    const stream = new Writable({ write(chunk, _e, cb) { got.push(chunk.toString()); cb(); } });
    const got: string[] = [];
    const logger = createLogger({ level: 'warn', destination: stream as never });
    logger.info('quiet');
    logger.warn('loud');
    expect(got).toHaveLength(1);
    expect(JSON.parse(got[0])).toMatchObject({ level: 'warn', msg: 'loud' });
  });
});
