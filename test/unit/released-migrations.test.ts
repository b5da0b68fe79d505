import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/*
 * A release's migrations made operators' databases: the code's migrations must start with them, byte for
 * byte and with the same journal entries (drizzle applies by the journal's `when`, and a database knows a
 * migration by its hash), so a later release only appends. test/fixtures/releases/<version> is the frozen
 * copy of each release's migrations (the upgrade test builds its database from it).
 */
const ROOT = new URL('../..', import.meta.url).pathname;
const RELEASES = ['0.1.0'];
const ENGINES = { sqlite: 'db/migrations', pg: 'db/pg/migrations' } as const;

interface Journal { entries: { idx: number; when: number; tag: string; breakpoints: boolean }[] }
const journal = (dir: string): Journal => JSON.parse(readFileSync(`${dir}/meta/_journal.json`, 'utf8'));

describe('released migrations', () => {
  for (const release of RELEASES) {
    for (const [engine, folder] of Object.entries(ENGINES)) {
      it(`${release} (${engine}): the code's migrations begin with the release's, unchanged`, () => {
        const frozen = `${ROOT}test/fixtures/releases/${release}/${engine}`;
        const shipped = journal(frozen).entries;
        const now = journal(`${ROOT}${folder}`).entries;
        expect(shipped.length).toBeGreaterThan(0);
        expect(now.slice(0, shipped.length)).toEqual(shipped);
        for (const e of shipped) {
          expect(readFileSync(`${ROOT}${folder}/${e.tag}.sql`, 'utf8'), `${folder}/${e.tag}.sql was rewritten after release ${release}`)
            .toBe(readFileSync(`${frozen}/${e.tag}.sql`, 'utf8'));
        }
        // every later migration is dated after the release's last: drizzle would skip one dated before it
        const last = shipped[shipped.length - 1].when;
        for (const e of now.slice(shipped.length)) expect(e.when, e.tag).toBeGreaterThan(last);
      });
    }
  }
});
