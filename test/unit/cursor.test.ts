// @engines none: a unit test with no database (runs once)
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../server/domain/cursor';
import { DomainError } from '../../server/errors';

describe('keyset cursors', () => {
  it('round-trip the (created_at, id) of a row', () => {
    const c = { createdAt: '2026-03-01T10:00:00.123Z', id: 'wd_0abc123def456ghi789j' };
    expect(decodeCursor(encodeCursor(c), 'wd')).toEqual(c);
  });

  it('refuse garbage and cursors of another list with a 400 on `cursor`', () => {
    const other = encodeCursor({ createdAt: '2026-03-01T10:00:00.123Z', id: 'txn_0abc123' });
    for (const bad of ['garbage', '', other, Buffer.from('2026-03-01|wd_x').toString('base64url')]) {
      const err = (() => { try { decodeCursor(bad, 'wd'); return null; } catch (e) { return e; } })();
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).status).toBe(400);
      expect((err as DomainError).extra.issues?.[0].path).toBe('cursor');
    }
  });
});
