import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { connectionsCheckingInterval } from '../../server/http/connections';

const saved = { ...process.env };
afterEach(() => { process.env = { ...saved }; });

describe('connection settings', () => {
  it('checks for expired requests often enough that both timeouts hold within half a second', () => {
    expect(connectionsCheckingInterval(10_000, 30_000)).toBe(500);
    expect(connectionsCheckingInterval(1_500, 3_000)).toBe(150);
    expect(connectionsCheckingInterval(100, 100)).toBe(50);
    expect(connectionsCheckingInterval(0, 0)).toBe(500);
  });

  it('reads the timeouts and caps from the environment, with generous defaults', () => {
    for (const k of ['HEADERS_TIMEOUT_MS', 'REQUEST_TIMEOUT_MS', 'MAX_CONNECTIONS', 'MAX_CONNECTIONS_PER_ADDRESS']) delete process.env[k];
    expect(loadConfig()).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 4_096, maxConnectionsPerAddress: 256 });
    Object.assign(process.env, { HEADERS_TIMEOUT_MS: '1500', REQUEST_TIMEOUT_MS: '3000', MAX_CONNECTIONS: '20', MAX_CONNECTIONS_PER_ADDRESS: '8' });
    expect(loadConfig()).toMatchObject({ headersTimeoutMs: 1_500, requestTimeoutMs: 3_000, maxConnections: 20, maxConnectionsPerAddress: 8 });
  });

  it('refuses a headers timeout longer than the request timeout, and caps below 1, at start', () => {
    Object.assign(process.env, { HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '3000' });
    expect(() => loadConfig()).toThrow('HEADERS_TIMEOUT_MS (5000) must not be longer than REQUEST_TIMEOUT_MS (3000)');
    process.env = { ...saved, MAX_CONNECTIONS_PER_ADDRESS: '0' };
    expect(() => loadConfig()).toThrow(/MAX_CONNECTIONS_PER_ADDRESS must be an integer ≥ 1/);
  });
});
