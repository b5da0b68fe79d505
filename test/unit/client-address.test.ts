import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { cameOverHttps, clientAddress, parseTrustedProxies } from '../../server/http/client-address';

const req = (peer: string, headers: Record<string, string> = {}, encrypted = false) =>
  ({ socket: { remoteAddress: peer, encrypted }, headers } as unknown as IncomingMessage);

describe('client address (docs/decisions.md "Client addresses")', () => {
  const none = parseTrustedProxies('');
  const trusted = parseTrustedProxies('127.0.0.1, 10.0.0.0/8, ::1');

  it('is the socket address when no proxy is trusted, whatever the headers say', () => {
    expect(clientAddress(req('203.0.113.9', { 'x-forwarded-for': '1.2.3.4' }), none)).toBe('203.0.113.9');
    expect(clientAddress(req('::ffff:203.0.113.9'), none)).toBe('203.0.113.9');
    expect(clientAddress(req('203.0.113.9', { 'x-forwarded-for': '1.2.3.4' }), trusted)).toBe('203.0.113.9');
  });

  it('behind a trusted proxy, is the right-most X-Forwarded-For hop that is not itself trusted', () => {
    expect(clientAddress(req('127.0.0.1', { 'x-forwarded-for': '1.2.3.4' }), trusted)).toBe('1.2.3.4');
    // the client wrote "6.6.6.6" itself; the proxies appended the rest
    expect(clientAddress(req('::ffff:127.0.0.1', { 'x-forwarded-for': '6.6.6.6, 5.6.7.8, 10.1.2.3' }), trusted)).toBe('5.6.7.8');
    expect(clientAddress(req('127.0.0.1', { 'x-forwarded-for': '[2001:db8::1]:443' }), trusted)).toBe('2001:db8::1');
    expect(clientAddress(req('127.0.0.1', { 'x-forwarded-for': '198.51.100.1:5000' }), trusted)).toBe('198.51.100.1');
    // every hop trusted: the left-most; no header: the proxy itself; garbage: the last good hop
    expect(clientAddress(req('127.0.0.1', { 'x-forwarded-for': '10.0.0.5, 10.0.0.6' }), trusted)).toBe('10.0.0.5');
    expect(clientAddress(req('127.0.0.1'), trusted)).toBe('127.0.0.1');
    expect(clientAddress(req('127.0.0.1', { 'x-forwarded-for': 'evil, 10.0.0.6' }), trusted)).toBe('10.0.0.6');
  });

  it('believes X-Forwarded-Proto from a trusted proxy only; a TLS socket is https by itself', () => {
    expect(cameOverHttps(req('127.0.0.1', { 'x-forwarded-proto': 'https' }), trusted)).toBe(true);
    expect(cameOverHttps(req('127.0.0.1', { 'x-forwarded-proto': 'https, http' }), trusted)).toBe(false);
    expect(cameOverHttps(req('203.0.113.9', { 'x-forwarded-proto': 'https' }), trusted)).toBe(false);
    expect(cameOverHttps(req('127.0.0.1', { 'x-forwarded-proto': 'https' }), none)).toBe(false);
    expect(cameOverHttps(req('203.0.113.9', {}, true), none)).toBe(true);
  });

  it('refuses a TRUSTED_PROXIES entry that is not an address or CIDR', () => {
    expect(() => parseTrustedProxies('127.0.0.1, proxy.internal')).toThrow(/proxy\.internal/);
    expect(() => parseTrustedProxies('10.0.0.0/33')).toThrow(/TRUSTED_PROXIES/);
    expect(parseTrustedProxies('::ffff:10.0.0.0/104').has('10.200.0.1')).toBe(true);
  });
});
