/** tsx bench/cpuprofile-top.ts file.cpuprofile [N]: self time by function and by file (no GUI). */
import { readFileSync } from 'node:fs';

const prof = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const N = Number(process.argv[3] ?? 40);
const byId = new Map<number, any>(prof.nodes.map((n: any) => [n.id, n]));
const self = new Map<number, number>();
for (let i = 0; i < prof.samples.length; i++) self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + (prof.timeDeltas[i] ?? 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const short = (u: string) => u.replace(/^file:\/\//, '').replace(/.*node_modules\//, 'nm/').replace(/.*\/wt\d+\//, '');
const fn = new Map<string, number>();
const file = new Map<string, number>();
const pkg = new Map<string, number>();
for (const [id, t] of self) {
  const n = byId.get(id);
  const cf = n.callFrame;
  const f = short(cf.url || '(native)');
  fn.set(`${cf.functionName || '(anon)'} ${f}:${cf.lineNumber + 1}`, (fn.get(`${cf.functionName || '(anon)'} ${f}:${cf.lineNumber + 1}`) ?? 0) + t);
  file.set(f, (file.get(f) ?? 0) + t);
  const p = f.startsWith('nm/') ? f.split('/').slice(0, f.split('/')[1].startsWith('@') ? 3 : 2).join('/') : f.startsWith('node:') ? 'node:*' : f.includes('/') ? f.split('/')[0] : f;
  pkg.set(p, (pkg.get(p) ?? 0) + t);
}
// inclusive time by function (a function counted once per sample even when recursive)
const parent = new Map<number, number>();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map<string, number>();
for (const [id, t] of self) {
  const seen = new Set<string>();
  for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) {
    const cf = byId.get(x).callFrame;
    const k = `${cf.functionName || '(anon)'} ${short(cf.url || '(native)')}:${cf.lineNumber + 1}`;
    if (seen.has(k)) continue;
    seen.add(k);
    incl.set(k, (incl.get(k) ?? 0) + t);
  }
}
const show = (title: string, m: Map<string, number>, n = N) => {
  console.log(`\n== ${title} (total ${(total / 1000).toFixed(0)} ms)`);
  for (const [k, t] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${(t / 1000).toFixed(0).padStart(7)} ms  ${k}`);
};
show('self by package/dir', pkg, 25);
show('self by file', file, 30);
show('self by function', fn);
if (process.env.INCL) show('inclusive by function', incl, Number(process.env.INCL));

/**
 * LAYERS=1 [PER_REQUEST_US=…]: where the time goes by layer, start-up (module loading) left out. Each sample
 * is charged to the nearest frame of our own code on its stack (the layer that asked for the work: a
 * background loop, the writer, a store, the domain, the HTTP/tRPC edge) and to what ran at its leaf
 * (postgres.js and its socket writes, drizzle, zod, logging, …). An async continuation's stack starts at
 * the resumed function, so postgres.js's parsing of answers (socket reads) has no owner: it shows as
 * "(no frame of ours)". PER_REQUEST_US scales the shares to a measured CPU per request.
 */
if (process.env.LAYERS) {
  const ours = (u: string) => u.startsWith('file://') && !u.includes('/node_modules/');
  const layerOf = (u: string): string => {
    const p = u.replace(/^.*?\/(server|db|contract|bench)\//, '$1/');
    if (/^server\/jobs\//.test(p) || /withdrawals\/settle|refunds\/settle|webhooks\/(dispatcher|deliveries|sender)|expiry|outcomes/.test(p)) return 'background loops (settlement, dispatcher, delivery, expiry)';
    if (/^db\/pg\/(writer|transact)|^db\/writer|^db\/query/.test(p)) return 'writer (db/pg/writer, transact, query)';
    if (/^db\/pg\/prepare|^db\/prepared/.test(p)) return 'prepared-statement wrapper (db/pg/prepare)';
    if (/^db\//.test(p)) return 'stores (db/stores, schema columns)';
    if (/^server\/observability|logger|log\.ts/.test(p)) return 'logging and metrics (ours)';
    if (/^server\/(http|main|trpc|context|routers)/.test(p)) return 'HTTP, REST adapter, tRPC procedures';
    if (/^server\/domain\/(accounts|idempotency|secrets)/.test(p)) return 'domain: auth and idempotency';
    if (/^server\//.test(p)) return 'domain: withdrawal, ledger, events';
    return p;
  };
  const leafOf = (stack: any[]): string | null => {
    const leaf = stack[0].callFrame;
    const urls = stack.map((n) => n.callFrame.url as string);
    if (urls.some((u) => /node:internal\/modules|\/tsx\/|esm\/hooks|source_map/.test(u))) return null; // start-up
    if (leaf.functionName === '(idle)') return null;
    if (leaf.functionName === '(garbage collector)') return 'GC';
    if (leaf.functionName === '(program)') return 'V8/native (program)';
    const u: string = leaf.url;
    // a socket write's sample is mostly the kernel's loopback work and the wait for a core after waking the
    // reader: wall time a sampling profiler sees, not the process's own CPU (/proc's system time says how much)
    if (/^(writeBuffer|writev|writeString|writeUtf8String|writeLatin1String)$/.test(leaf.functionName)) return 'socket writes (syscalls)';
    if (u.includes('/node_modules/postgres/') || (urls.some((x) => x.includes('/node_modules/postgres/')) && !ours(u) && !u.includes('/node_modules/'))) return 'postgres.js (encode, parse, socket I/O)';
    if (u.includes('/drizzle-orm/')) return 'drizzle';
    if (u.includes('/zod/')) return 'zod';
    if (/\/(pino|sonic-boom|@pinojs|prom-client)\//.test(u)) return 'pino / prom-client';
    if (u.includes('/@trpc/')) return 'tRPC';
    if (ours(u)) return 'our code (self)';
    if (/node:(_http|http|net)|node:internal\/(http|stream|streams|net)|llhttp/.test(u) || /^(writev|writeBuffer|writeString|readStart)$/.test(leaf.functionName)) return 'node http/net';
    if (u.includes('/node_modules/')) return 'other packages';
    return 'node/V8 other (crypto, buffers, timers, promises)';
  };
  const cells = new Map<string, Map<string, number>>();
  let counted = 0;
  for (const [id, t] of self) {
    const stack: any[] = [];
    for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) stack.push(byId.get(x));
    const leaf = leafOf(stack);
    if (!leaf) continue;
    const mine = stack.find((n) => ours(n.callFrame.url));
    const layer = mine ? layerOf(mine.callFrame.url) : `(no frame of ours) ${stack.length > 2 ? stack[stack.length - 2].callFrame.functionName || '(anon)' : ''}`.trim();
    const row = cells.get(layer) ?? new Map<string, number>();
    row.set(leaf, (row.get(leaf) ?? 0) + t);
    cells.set(layer, row);
    counted += t;
  }
  const per = Number(process.env.PER_REQUEST_US ?? 0);
  const fmt = (t: number) => `${((100 * t) / counted).toFixed(1).padStart(5)}%${per ? ` ${((per * t) / counted).toFixed(0).padStart(5)} µs` : ''}`;
  console.log(`\n== by layer (the nearest frame of ours) and by leaf; start-up and idle left out (${(counted / 1000).toFixed(0)} ms)`);
  const layers = [...cells].map(([l, m]) => [l, m, [...m.values()].reduce((a, b) => a + b, 0)] as const).sort((a, b) => b[2] - a[2]);
  for (const [l, m, sum] of layers) {
    console.log(`${fmt(sum)}  ${l}`);
    for (const [leaf, t] of [...m].sort((a, b) => b[1] - a[1])) if (t / counted >= 0.003) console.log(`      ${fmt(t)}  ${leaf}`);
  }
  // who asked: the outermost frame of ours (an async continuation starts at the function it resumes)
  const origin = (u: string): string => {
    const p = u.replace(/^.*?\/(server|db|contract|bench)\//, '$1/');
    if (/withdrawals\/settle|rails\/|refunds/.test(p)) return 'settlement (claim, rail, apply jobs)';
    if (/webhooks\//.test(p)) return 'dispatcher and delivery';
    if (/^server\/jobs\//.test(p)) return 'job loops (polls)';
    if (/^db\/pg\/(writer|transact)/.test(p)) return 'writer: group BEGIN/SAVEPOINT/COMMIT';
    if (/^server\/observability|^server\/log/.test(p)) return 'logging, metrics, audit';
    if (/^server\/|^db\/|^contract\//.test(p)) return 'request path (HTTP, tRPC, auth, idempotency, the withdrawal job)';
    return p;
  };
  const byOrigin = new Map<string, number>();
  for (const [id, t] of self) {
    const stack: any[] = [];
    for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) stack.push(byId.get(x));
    const leaf = leafOf(stack);
    if (!leaf) continue;
    const outer = [...stack].reverse().find((n) => ours(n.callFrame.url));
    const k = outer ? origin(outer.callFrame.url) : leaf === 'socket writes (syscalls)' ? '(no frame of ours) socket writes' : leaf.startsWith('postgres.js') ? '(no frame of ours) postgres.js: answers parsed, queued writes' : `(no frame of ours) ${leaf}`;
    byOrigin.set(k, (byOrigin.get(k) ?? 0) + t);
  }
  console.log('\n== by who asked (the outermost frame of ours)');
  for (const [k, t] of [...byOrigin].sort((a, b) => b[1] - a[1])) console.log(`${fmt(t)}  ${k}`);

  const leaves = new Map<string, number>();
  for (const [, m] of cells) for (const [leaf, t] of m) leaves.set(leaf, (leaves.get(leaf) ?? 0) + t);
  console.log('\n== by leaf, all layers');
  for (const [leaf, t] of [...leaves].sort((a, b) => b[1] - a[1])) console.log(`${fmt(t)}  ${leaf}`);
}
