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
