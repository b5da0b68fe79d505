// Fails when a module of the product imports itself through others (type imports included: a cycle of
// types is still two modules that cannot be read, moved or tested apart). `npm test` runs it after the
// lint. Resolution is TypeScript's own, with tsconfig.json (the `@/` alias included).
//   npx tsx scripts/import-cycles.ts [folder…]   (default: contract db server app)
import ts from 'typescript';
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const folders = (process.argv.length > 2 ? process.argv.slice(2) : ['contract', 'db', 'server', 'app']).map((f) => resolve(root, f));
const config = ts.getParsedCommandLineOfConfigFile(resolve(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
if (!config) throw new Error('tsconfig.json could not be read');
const inScope = (file: string) => folders.some((f) => file.startsWith(`${f}/`)) && !file.includes('/node_modules/') && /\.tsx?$/.test(file) && !file.endsWith('.d.ts');
const files = config.fileNames.map((f) => resolve(f)).filter(inScope);

const edges = new Map<string, string[]>();
for (const file of files) {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const targets = new Set<string>();
  for (const ref of info.importedFiles) {
    const found = ts.resolveModuleName(ref.fileName, file, config.options, ts.sys).resolvedModule?.resolvedFileName;
    if (found && inScope(resolve(found))) targets.add(resolve(found));
  }
  edges.set(file, [...targets]);
}

// Tarjan's strongly connected components: every component of more than one module is a cycle
let index = 0;
const order = new Map<string, number>();
const low = new Map<string, number>();
const stack: string[] = [];
const onStack = new Set<string>();
const cycles: string[][] = [];
function visit(v: string) {
  order.set(v, index); low.set(v, index); index++;
  stack.push(v); onStack.add(v);
  for (const w of edges.get(v) ?? []) {
    if (!order.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
    else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
  }
  if (low.get(v) === order.get(v)) {
    const component: string[] = [];
    let w: string;
    do { w = stack.pop()!; onStack.delete(w); component.push(w); } while (w !== v);
    if (component.length > 1 || (edges.get(v) ?? []).includes(v)) cycles.push(component);
  }
}
for (const file of files) if (!order.has(file)) visit(file);

if (cycles.length === 0) {
  console.log(`no import cycle among ${files.length} modules`);
} else {
  for (const c of cycles) console.error(`import cycle: ${c.map((f) => relative(root, f)).sort().join(', ')}`);
  process.exit(1);
}
