// Whether a command (a test run, a build) leaves cores idle or wants more than the machine has: it runs
// the command and, every second, reads the scheduler's figures of every thread of its process tree
// (/proc/<pid>/task/<tid>/schedstat: time on a CPU and time waiting for one). Their sum per second is the
// number of threads the command kept runnable; below the core count, cores sat idle and more
// parallelism would pay; above it, only less work would. Unlike wall time, this holds on a machine
// other work shares (their load lengthens the waits, not the sleeps). Linux only.
//   npx tsx scripts/cpu-demand.ts [--samples FILE] -- COMMAND [ARG…]
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';

const args = process.argv.slice(2);
const dash = args.indexOf('--');
if (dash < 0 || dash === args.length - 1) {
  console.error('usage: npx tsx scripts/cpu-demand.ts [--samples FILE] -- COMMAND [ARG…]');
  process.exit(2);
}
const samplesAt = args.indexOf('--samples');
const samplesFile = samplesAt >= 0 && samplesAt < dash ? args[samplesAt + 1] : undefined;
const [command, ...commandArgs] = args.slice(dash + 1);

const read = (path: string) => { try { return readFileSync(path, 'utf8'); } catch { return undefined; } };

/** Every process under `root` (root included), by parent links. */
function tree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = read(`/proc/${name}/stat`);
    if (!stat) continue;
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]) ?? []));
  return out;
}

/** Nanoseconds on a CPU and waiting for one, per thread of the tree. */
function sched(root: number): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  for (const pid of tree(root)) {
    let tids: string[] = [];
    try { tids = readdirSync(`/proc/${pid}/task`); } catch { continue; }
    for (const tid of tids) {
      const s = read(`/proc/${pid}/task/${tid}/schedstat`);
      if (s) { const [run, wait] = s.split(' ').map(Number); out.set(`${pid}/${tid}`, [run, wait]); }
    }
  }
  return out;
}

/** The machine's busy cores since the previous call (/proc/stat: all but idle and iowait). */
let lastStat: [number, number] | undefined;
function machineBusy(): number {
  const v = read('/proc/stat')!.split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = v.reduce((a, b) => a + b, 0);
  const idle = v[3] + v[4];
  const prev = lastStat ?? [total, idle];
  lastStat = [total, idle];
  return total > prev[0] ? cpus().length * (1 - (idle - prev[1]) / (total - prev[0])) : 0;
}

const started = Date.now();
const child = spawn(command, commandArgs, { stdio: 'inherit' });
const rows: { t: number; cpu: number; wait: number; busy: number }[] = [];
let prev = new Map<string, [number, number]>();
machineBusy();
const timer = setInterval(() => {
  if (!child.pid) return;
  const cur = sched(child.pid);
  let cpu = 0, wait = 0;
  // a thread born since the last sample counts from its start (less than a second); one that ended
  // in between loses its last second: a few per cent on a run of short-lived processes
  for (const [k, [run, w]] of cur) { const [pr, pw] = prev.get(k) ?? [0, 0]; cpu += run - pr; wait += w - pw; }
  prev = cur;
  rows.push({ t: Math.round((Date.now() - started) / 1000), cpu: cpu / 1e9, wait: wait / 1e9, busy: machineBusy() });
}, 1000);

child.on('exit', (code, signal) => {
  clearInterval(timer);
  const n = rows.length || 1;
  const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((a, r) => a + f(r), 0);
  const cores = cpus().length;
  const share = (ok: (d: number) => boolean) => `${Math.round((100 * rows.filter((r) => ok(r.cpu + r.wait)).length) / n)}%`;
  if (samplesFile) writeFileSync(samplesFile, ['t cpu wait machine_busy', ...rows.map((r) => `${r.t} ${r.cpu.toFixed(2)} ${r.wait.toFixed(2)} ${r.busy.toFixed(2)}`)].join('\n') + '\n');
  console.error([
    `cpu-demand: ${((Date.now() - started) / 1000).toFixed(0)} s wall, ${sum((r) => r.cpu).toFixed(0)} CPU-s in the tree (${(sum((r) => r.cpu) / n).toFixed(2)} cores on average)`,
    `  runnable threads on average ${(sum((r) => r.cpu + r.wait) / n).toFixed(2)} for ${cores} cores; seconds below 1: ${share((d) => d < 1)}, below ${cores}: ${share((d) => d < cores)}, at or above ${cores}: ${share((d) => d >= cores)}`,
    `  the whole machine was busy ${(sum((r) => r.busy) / n).toFixed(2)} cores on average`,
  ].join('\n'));
  process.exit(code ?? (signal ? 1 : 0));
});
