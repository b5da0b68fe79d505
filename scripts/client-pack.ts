/**
 * `npm run client:pack`: builds the installable typed client, pix-payments-client-<version>.tgz, in the
 * repository root (or in --out DIR).
 *
 * The package must not depend on the server's code, database or Next, yet its AppRouter type is the
 * server's. Emitting the server router's declarations would drag in its context (services, drizzle,
 * better-sqlite3) and its meta (trpc-to-openapi, zod). Instead the TypeScript compiler resolves every
 * procedure's input and output type here, and they are written out structurally into a standalone
 * declaration of the same router (app-router.ts) that needs only @trpc/server's types. The client's
 * runtime (client/src) is compiled as it is, against that declaration, so a procedure the declaration
 * got wrong fails this build rather than a consumer's.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import { appRouter } from '../server/routers';
import { idempotentProcedures } from '../server/routers/idempotent';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const BUILD = join(ROOT, 'build', 'client');
const args = process.argv.slice(2);
const outDir = args.includes('--out') ? resolve(args[args.indexOf('--out') + 1]) : ROOT;
const rootPkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
const PACKAGE = 'pix-payments-client';

// ---- 1. the router's procedures, as the compiler sees them ----

let repoProgram: ts.Program | undefined; // kept so the check below reuses its parsed files

function routerDeclaration(): string {
  const probe = join(ROOT, 'client', 'src', '__router_probe.ts');
  writeFileSync(probe, "import type { AppRouter } from '../../server/routers';\nexport type Probe = AppRouter;\n");
  try {
    const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
    const program = ts.createProgram([probe], { ...config.options, noEmit: true, incremental: false, plugins: [] });
    repoProgram = program;
    const checker = program.getTypeChecker();
    const file = program.getSourceFile(probe)!;
    const alias = file.statements.find(ts.isTypeAliasDeclaration)!;
    const routerType = checker.getTypeAtLocation(alias.name);
    const prop = (t: ts.Type, name: string) => {
      const sym = t.getProperty(name);
      if (!sym) throw new Error(`no ${name} on ${checker.typeToString(t)}`);
      return checker.getTypeOfSymbolAtLocation(sym, alias);
    };
    const flags = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType;
    // Structural, all the way down: a named type (an interface of the server, an alias inside
    // @trpc/server) would otherwise be printed as an import of a file the package does not have.
    const print = (t: ts.Type, seen: ts.Type[] = []): string => {
      if (seen.includes(t) || seen.length > 40) throw new Error(`recursive type in the router: ${checker.typeToString(t)}`);
      const inner = [...seen, t];
      if (t.isUnion()) return t.types.map((x) => print(x, inner)).join(' | ');
      if (t.isIntersection()) return t.types.map((x) => `(${print(x, inner)})`).join(' & ');
      if (!(t.flags & ts.TypeFlags.Object)) return checker.typeToString(t, alias, flags);
      if (checker.isArrayType(t)) return `(${print(checker.getTypeArguments(t as ts.TypeReference)[0], inner)})[]`;
      if (checker.isTupleType(t)) return `[${checker.getTypeArguments(t as ts.TypeReference).map((x) => print(x, inner)).join(', ')}]`;
      if (t.getCallSignatures().length) throw new Error(`a function in the router's types: ${checker.typeToString(t)}`);
      const members = checker.getIndexInfosOfType(t).map((i) => `[key: ${checker.typeToString(i.keyType)}]: ${print(i.type, inner)};`);
      for (const p of checker.getPropertiesOfType(t)) {
        const optional = (p.flags & ts.SymbolFlags.Optional) !== 0;
        members.push(`${JSON.stringify(p.name)}${optional ? '?' : ''}: ${print(checker.getTypeOfSymbolAtLocation(p, alias), inner)};`);
      }
      return `{ ${members.join(' ')} }`;
    };

    const def = prop(routerType, '_def');
    const errorShape = print(prop(prop(prop(def, '_config'), '$types'), 'errorShape'));
    const KIND = { query: 'TRPCQueryProcedure', mutation: 'TRPCMutationProcedure', subscription: 'TRPCSubscriptionProcedure' } as const;

    const record = (t: ts.Type, indent: string): string => {
      const lines: string[] = [];
      for (const sym of t.getProperties()) {
        const value = checker.getTypeOfSymbolAtLocation(sym, alias);
        const inner = value.getProperty('_def') ? prop(value, '_def') : null;
        if (inner?.getProperty('procedure')) {
          const kind = (prop(inner, 'type') as ts.StringLiteralType).value as keyof typeof KIND;
          const types = prop(inner, '$types');
          lines.push(`${indent}${sym.name}: ${KIND[kind]}<{ input: ${print(prop(types, 'input'))}; output: ${print(prop(types, 'output'))}; meta: object }>;`);
        } else {
          lines.push(`${indent}${sym.name}: {\n${record(value, `${indent}  `)}\n${indent}};`);
        }
      }
      return lines.join('\n');
    };
    const body = record(prop(def, 'record'), '  ');
    return [
      '// Generated by scripts/client-pack.ts from the server\'s router: every procedure with its input and',
      '// output types written out, so this package needs no server code. Do not edit.',
      "import type { TRPCBuiltRouter, TRPCMutationProcedure, TRPCQueryProcedure, TRPCSubscriptionProcedure } from '@trpc/server';",
      '',
      `/** The error shape every failed call carries (\`error.data\`). */`,
      `export type PaymentsErrorShape = ${errorShape};`,
      '',
      'type Root = { ctx: object; meta: object; errorShape: PaymentsErrorShape; transformer: false };',
      '',
      'export type AppRouter = TRPCBuiltRouter<Root, {',
      body,
      '}>;',
      '',
      '// keeps the subscription kind importable even while no procedure uses it',
      'export type _Kinds = TRPCQueryProcedure<never> | TRPCMutationProcedure<never> | TRPCSubscriptionProcedure<never>;',
      '',
    ].join('\n');
  } finally {
    rmSync(probe, { force: true });
  }
}

// ---- 2. the package folder: sources, generated declarations, package.json, README ----

rmSync(BUILD, { recursive: true, force: true });
mkdirSync(join(BUILD, 'src'), { recursive: true });
for (const f of ['core.ts', 'index.ts']) copyFileSync(join(ROOT, 'client', 'src', f), join(BUILD, 'src', f));
writeFileSync(join(BUILD, 'src', 'app-router.ts'), routerDeclaration());
writeFileSync(join(BUILD, 'src', 'procedures.ts'), [
  '// Generated by scripts/client-pack.ts from the router\'s metadata: the procedures that take an idempotency-key.',
  `export const IDEMPOTENT_PROCEDURES: ReadonlySet<string> = new Set(${JSON.stringify([...idempotentProcedures(appRouter)].sort())});`,
  '',
].join('\n'));
writeFileSync(join(BUILD, 'tsconfig.json'), JSON.stringify({
  compilerOptions: {
    target: 'ES2022', lib: ['ES2023', 'DOM'], module: 'NodeNext', moduleResolution: 'NodeNext', strict: true,
    // @trpc/* resolve from the repository's node_modules (build/ is inside it); no @types are needed
    declaration: true, outDir: 'dist', rootDir: 'src', skipLibCheck: true, types: [],
  },
  include: ['src'],
}, null, 2));
const trpcVersion = rootPkg.dependencies['@trpc/client'];
writeFileSync(join(BUILD, 'package.json'), JSON.stringify({
  name: PACKAGE,
  version: rootPkg.version,
  description: 'Typed client of the Pix Payments API (tRPC): createPaymentsClient and the AppRouter type',
  type: 'module',
  main: './dist/index.js',
  types: './dist/index.d.ts',
  exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
  files: ['dist', 'README.md'],
  // @trpc/client needs @trpc/server beside it (its peer); nothing of the payments server ships here
  peerDependencies: { '@trpc/client': trpcVersion, '@trpc/server': rootPkg.dependencies['@trpc/server'] },
  engines: { node: '>=20.9' },
  sideEffects: false,
}, null, 2));
copyFileSync(join(ROOT, 'client', 'README.md'), join(BUILD, 'README.md'));

// ---- 3. the written-out router must be the server's, call for call ----

function checkSameProcedures() {
  const check = join(BUILD, 'same-procedures.ts');
  writeFileSync(check, [
    "import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';",
    "import type { AppRouter as Server } from '../../server/routers';",
    "import type { AppRouter as Packaged } from './src/app-router';",
    'type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;',
    'export const inputs: Same<inferRouterInputs<Server>, inferRouterInputs<Packaged>> = true;',
    'export const outputs: Same<inferRouterOutputs<Server>, inferRouterOutputs<Packaged>> = true;',
    '',
  ].join('\n'));
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
  const program = ts.createProgram([check], { ...config.options, noEmit: true, incremental: false, plugins: [] }, undefined, repoProgram);
  const errors = ts.getPreEmitDiagnostics(program).filter((d) => d.file?.fileName === check);
  if (errors.length) {
    throw new Error(`the packaged AppRouter differs from the server's:\n${ts.formatDiagnostics(errors, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' })}`);
  }
  rmSync(check);
}
checkSameProcedures();

// ---- 4. compile (declarations and ESM) and pack ----

execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(BUILD, 'tsconfig.json')], { stdio: 'inherit' });
const generated = readFileSync(join(BUILD, 'dist', 'index.d.ts'), 'utf8') + readFileSync(join(BUILD, 'dist', 'app-router.d.ts'), 'utf8');
const imports = [...generated.matchAll(/from ['"]([^'"]+)['"]/g)].map((m) => m[1]).filter((m) => !m.startsWith('.'));
const foreign = imports.filter((m) => !m.startsWith('@trpc/'));
if (foreign.length) throw new Error(`the declarations import ${foreign.join(', ')}: only @trpc/* may be imported`);
mkdirSync(outDir, { recursive: true });
const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', outDir], { cwd: BUILD, encoding: 'utf8' }).trim().split('\n').pop()!;
console.log(join(outDir, out));
