// @engines none: a unit test with no database (runs once)
import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import {
  checkWebhookUrl,
  classifyAddress,
  guardedLookup,
  parseHostLiteral,
} from '@/server/domain/webhooks/url-guard';

describe('parseHostLiteral', () => {
  const cases: Array<[string, string | null]> = [
    ['127.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0X7F000001', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['1.256', '1.0.1.0'],
    ['0', '0.0.0.0'],
    ['0x', '0.0.0.0'],
    ['00', '0.0.0.0'],
    ['4294967295', '255.255.255.255'],
    ['[::1]', '::1'],
    ['::ffff:127.0.0.1', '::ffff:7f00:1'],
    ['[::ffff:7f00:1]', '::ffff:7f00:1'],
    ['4294967296', null],
    ['1.2.3.4.5', null],
    ['256.0.0.1', null],
    ['09', null],
    ['1.2.3.08', null],
    ['example.com', null],
    ['localhost', null],
    ['', null],
    ['[not-ip]', null],
  ];
  it.each(cases)('%s -> %s', (host, expected) => {
    expect(parseHostLiteral(host)).toBe(expected);
  });

  it('agrees with WHATWG URL host parsing wherever URL accepts the IPv4 form', () => {
    for (const [host, expected] of cases) {
      if (expected === null || expected.includes(':')) continue;
      // Relied on by checkWebhookUrl/sendWebhook: new URL() already canonicalises these forms.
      expect(new URL(`http://${host}/`).hostname).toBe(expected);
    }
    for (const host of ['1.2.3.4.5', '256.0.0.1', '09', '1.2.3.08', '4294967296']) {
      expect(() => new URL(`http://${host}/`)).toThrow();
    }
  });
});

describe('classifyAddress', () => {
  const privateAddrs = [
    '127.0.0.1', '127.255.255.254', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1',
    '169.254.169.254', '100.64.0.1', '0.0.0.0', '0.1.2.3', '255.255.255.255', '224.0.0.1',
    '239.255.255.250', '240.0.0.1', '192.0.2.1', '198.18.0.1',
    '::', '::1', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1',
    '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::127.0.0.1',
    '64:ff9b::7f00:1', '2001:db8::1',
    '2130706433', '127.1', 'not-an-ip', '',
  ];
  const publicAddrs = ['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:93.184.216.34', '64:ff9b::808:808'];

  it.each(privateAddrs)('%s is private', (ip) => expect(classifyAddress(ip)).toBe('private'));
  it.each(publicAddrs)('%s is public', (ip) => expect(classifyAddress(ip)).toBe('public'));
});

describe('checkWebhookUrl', () => {
  const refused = [
    'http://127.0.0.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://127.1/',
    'http://0177.0.0.1/',
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data',
    'http://0.0.0.0/',
    'http://[fe80::1]/',
    'http://[fd00::1]/',
    'https://100.64.1.1/',
    'http://localhost/',
    'http://localhost./',
    'ftp://x',
    'http://user:pw@example.com/',
    'http://user@93.184.216.34/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'not a url',
  ];
  it.each(refused)('refuses %s', async (url) => {
    const r = await checkWebhookUrl(url, { allowPrivate: false });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toBeTruthy();
  });

  it('accepts a public IP literal without any DNS lookup', async () => {
    const resolve = async (): Promise<LookupAddress[]> => {
      throw new Error('must not resolve literals');
    };
    const r = await checkWebhookUrl('http://93.184.216.34/hook', { allowPrivate: false, resolve });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.url.href).toBe('http://93.184.216.34/hook');
    expect((await checkWebhookUrl('https://[2606:4700:4700::1111]:8443/x', { allowPrivate: false, resolve })).ok).toBe(true);
  });

  it('gives specific reasons', async () => {
    expect(await checkWebhookUrl('ftp://x', { allowPrivate: false })).toEqual({ ok: false, reason: 'only http and https URLs are allowed' });
    expect(await checkWebhookUrl('http://user:pw@example.com/', { allowPrivate: false })).toEqual({ ok: false, reason: 'credentials in the URL are not allowed' });
    expect(await checkWebhookUrl('http://localhost/', { allowPrivate: false })).toEqual({ ok: false, reason: 'hostname resolves to a private or reserved address' });
  });

  it('refuses a name if ANY resolved address is private', async () => {
    const mixed = async (): Promise<LookupAddress[]> => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.1.2.3', family: 4 },
    ];
    expect((await checkWebhookUrl('https://hooks.example/', { allowPrivate: false, resolve: mixed })).ok).toBe(false);
    const mapped = async (): Promise<LookupAddress[]> => [{ address: '::ffff:127.0.0.1', family: 6 }];
    expect((await checkWebhookUrl('https://hooks.example/', { allowPrivate: false, resolve: mapped })).ok).toBe(false);
    const allPublic = async (): Promise<LookupAddress[]> => [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ];
    expect((await checkWebhookUrl('https://hooks.example/', { allowPrivate: false, resolve: allPublic })).ok).toBe(true);
    const none = async (): Promise<LookupAddress[]> => [];
    expect((await checkWebhookUrl('https://hooks.example/', { allowPrivate: false, resolve: none })).ok).toBe(false);
    const nx = async (): Promise<LookupAddress[]> => {
      throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' });
    };
    expect(await checkWebhookUrl('https://hooks.example/', { allowPrivate: false, resolve: nx })).toEqual({ ok: false, reason: 'hostname does not resolve' });
  });

  it('allowPrivate skips address checks but never the scheme/credential checks', async () => {
    expect((await checkWebhookUrl('http://127.0.0.1:3000/hook', { allowPrivate: true })).ok).toBe(true);
    expect((await checkWebhookUrl('http://localhost/', { allowPrivate: true })).ok).toBe(true);
    expect((await checkWebhookUrl('ftp://127.0.0.1/', { allowPrivate: true })).ok).toBe(false);
    expect((await checkWebhookUrl('http://u:p@127.0.0.1/', { allowPrivate: true })).ok).toBe(false);
  });
});

describe('guardedLookup (connect-time check)', () => {
  type Out = { err: NodeJS.ErrnoException | null; address: unknown; family?: number };
  const run = (allowPrivate: boolean, host: string, options: { all?: boolean; family?: number }) =>
    new Promise<Out>((resolve) => {
      guardedLookup(allowPrivate)(host, options, (err, address, family) => resolve({ err, address, family }));
    });

  it('refuses a name resolving to loopback with EPRIVATEADDRESS (single and all modes)', async () => {
    const single = await run(false, 'localhost', {});
    expect(single.err?.code).toBe('EPRIVATEADDRESS');
    const all = await run(false, 'localhost', { all: true });
    expect(all.err?.code).toBe('EPRIVATEADDRESS');
    // Even when a numeric form reaches lookup.
    expect((await run(false, '127.0.0.1', {})).err?.code).toBe('EPRIVATEADDRESS');
  });

  it('passes addresses through when allowed, in the shape net expects', async () => {
    const single = await run(true, '127.0.0.1', {});
    expect(single.err).toBeNull();
    expect(single.address).toBe('127.0.0.1');
    expect(single.family).toBe(4);
    const all = await run(true, '127.0.0.1', { all: true });
    expect(all.err).toBeNull();
    expect(all.address).toEqual([{ address: '127.0.0.1', family: 4 }]);
  });

  it('lets a public literal through even when private is not allowed', async () => {
    const r = await run(false, '93.184.216.34', { all: true });
    expect(r.err).toBeNull();
    expect(r.address).toEqual([{ address: '93.184.216.34', family: 4 }]);
  });
});
