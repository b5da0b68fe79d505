// @engines sqlite: the package, its types and its install are the same over both engines; the one call it runs (a withdrawal through tRPC) runs on PostgreSQL in the API and e2e suites
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, startServer, type RunningServer } from '../support/server';

// The typed client other TypeScript services install (docs/api.md): the tarball of `npm run client:pack`,
// installed into a project outside the repository, type-checks a correct call, refuses a wrong one, and
// runs against the real server.

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

let srv: RunningServer;
let work: string; // outside the repository
let scratch: string;
let tarball: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pix-client-'));
  srv = await startServer();
  await run(process.execPath, ['--import', 'tsx', 'scripts/client-pack.ts', '--out', join(work, 'pkg')], { cwd: ROOT, timeout: 400_000 });
  tarball = join(work, 'pkg', readdirSync(join(work, 'pkg')).find((f) => f.endsWith('.tgz'))!);

  scratch = join(work, 'service');
  mkdirSync(scratch);
  // @trpc/* come from this repository's node_modules (file: links), so the install needs no registry
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({
    name: 'some-other-service', private: true, type: 'module',
    dependencies: {
      'pix-payments-client': `file:${tarball}`,
      '@trpc/client': `file:${join(ROOT, 'node_modules/@trpc/client')}`,
      '@trpc/server': `file:${join(ROOT, 'node_modules/@trpc/server')}`,
    },
  }));
  // --legacy-peer-deps: npm 11's arborist crashes placing peers next to file: links; the peers are listed above anyway
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--legacy-peer-deps', '--loglevel=error'], { cwd: scratch, timeout: 120_000 });
  writeFileSync(join(scratch, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, lib: ['ES2023', 'DOM'], types: [], outDir: 'out', skipLibCheck: true },
  }));
}, 600_000);

afterAll(async () => {
  await srv?.stop();
  if (srv) removeDir(srv.dir);
  if (work) removeDir(work);
});

const PRELUDE = `import { createPaymentsClient } from 'pix-payments-client';
declare const process: { env: Record<string, string | undefined> };
const payments = createPaymentsClient({ url: process.env.PIX_URL!, credentials: { code: process.env.PIX_CODE!, token: process.env.PIX_TOKEN! } });
`;

async function tsc(file: string, source: string, emit = false) {
  writeFileSync(join(scratch, file), source);
  const args = [TSC, '-p', 'tsconfig.json', ...(emit ? [] : ['--noEmit'])];
  // tsc -p compiles every .ts of the project: keep only the file under test
  writeFileSync(join(scratch, 'tsconfig.json'), JSON.stringify({ ...JSON.parse(readFileSync(join(scratch, 'tsconfig.json'), 'utf8')), files: [file] }));
  return run(process.execPath, args, { cwd: scratch }).then(() => ({ code: 0, out: '' }), (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }));
}

describe('the installable client (pix-payments-client)', () => {
  it('installs with nothing of the server: only @trpc/client and @trpc/server beside it', () => {
    const pkg = JSON.parse(readFileSync(join(scratch, 'node_modules/pix-payments-client/package.json'), 'utf8'));
    expect(pkg.name).toBe('pix-payments-client');
    expect(tarball).toMatch(new RegExp(`pix-payments-client-${pkg.version}\\.tgz$`));
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(Object.keys(pkg.peerDependencies).sort()).toEqual(['@trpc/client', '@trpc/server']);
    const dist = join(scratch, 'node_modules/pix-payments-client/dist');
    const shipped = readdirSync(dist).map((f) => readFileSync(join(dist, f), 'utf8')).join('\n');
    const imported = new Set([...shipped.matchAll(/from ['"]([^'"]+)['"]/g)].map((m) => m[1]).filter((m) => !m.startsWith('.')));
    expect([...imported].sort()).toEqual(['@trpc/client', '@trpc/server']);
    expect(shipped).not.toMatch(/drizzle|better-sqlite3|next\/|server\/routers/);
  });

  it('a wrong call does not compile: a string amount, an unknown procedure, a misread output', async () => {
    const res = await tsc('wrong.ts', `${PRELUDE}
await payments.withdrawals.create.mutate({ amount: '2500', key: 'maria@example.com', key_type: 'EMAIL', details: { name: 'Maria', document: '52998224725' } });
await payments.account.balanceOf.query();
const b = await payments.account.balance.query();
const s: string = b.available;
`);
    expect(res.code).not.toBe(0);
    // (PRELUDE is lines 1–4)
    expect(res.out).toMatch(/wrong\.ts\(5,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/);
    expect(res.out).toMatch(/wrong\.ts\(6,\d+\): error TS\d+: Property 'balanceOf' does not exist/);
    expect(res.out).toMatch(/wrong\.ts\(8,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/);
    expect(res.out.trim().split('\n').filter((l) => /error TS/.test(l))).toHaveLength(3);
  });

  it('a correct call compiles and runs against the running server', async () => {
    const ok = await tsc('ok.ts', `${PRELUDE}
const before = await payments.account.balance.query();
const created = await payments.withdrawals.create.mutate({ amount: 2500, key: 'maria@example.com', key_type: 'EMAIL', details: { name: 'Maria Silva', document: '529.982.247-25' } });
const after = await payments.account.balance.query();
const cents: number = after.available;
console.log(JSON.stringify({ before: before.available, after: cents, status: created.data[0]?.status ?? null }));
`, true);
    expect(ok).toEqual({ code: 0, out: '' });
    const { stdout } = await run(process.execPath, [join(scratch, 'out/ok.js')], {
      cwd: scratch, env: { ...process.env, PIX_URL: srv.url, PIX_CODE: srv.demo.code, PIX_TOKEN: srv.demo.token },
    });
    const result = JSON.parse(stdout.trim());
    expect(result.before - result.after).toBe(2500);
  });
});
