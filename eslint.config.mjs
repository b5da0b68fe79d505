// The import boundaries of the layout (docs/architecture and STYLE.md "The house"), enforced: a violation
// fails `npm run lint`, which `npm test` runs after the type-check. Only the boundaries for now; the type
// checker is tsc (`npm run typecheck`), not this file.
import tseslint from 'typescript-eslint';

/** An import path naming one of these top-level folders, relative (`../../server/…`) or by alias (`@/server/…`). */
const folder = (names) => `(^|/)(${names})(/|$)`;

/** One boundary: files under `files` may not import what `patterns` names (regexes over the import path). */
const boundary = (files, patterns) => ({
  files,
  rules: {
    '@typescript-eslint/no-restricted-imports': ['error', {
      patterns: patterns.map(([regex, message]) => ({ regex, message })),
    }],
  },
});

/** What no file under server/ may import: the query builder, the tables and the engines' internals. */
const serverBoundary = [
  ['^drizzle-orm', 'server/ asks the stores (db/stores): no query builder above db/'],
  ['(^|/)db/(schema|query|prepared|dialect|name-words|pg|client|handle|writer|reader-thread|memory-rate-limits|stores/handle-of)(/|\\.|$)', 'server/ asks the stores (db/stores) and opens the database through db/index.ts: tables, SQL helpers and engines stay in db/'],
];

/** The domain calls the stores' methods, never the connection under them. */
const noHandle = { selector: 'MemberExpression[property.name="handle"]', message: 'the domain calls the stores\' methods, never the connection under them' };

/** A parameter typed `name` (plain or inside Pick<…>), for the domain's one function shape. */
const typed = (name) => `[typeAnnotation.typeAnnotation.typeName.name="${name}"], [typeAnnotation.typeAnnotation.typeArguments.params.0.typeName.name="${name}"]`;
const domainShape = [
  { selector: 'TSTypeReference[typeName.name="AppDatabase"]', message: 'an entry point takes its deps (`s: Services` or a Pick of it; s.db is the database), a step the stores of its job (`tx: Stores`): never AppDatabase' },
  { selector: `:function > Identifier.params:matches([name!="tx"], :not(:first-child)):matches(${typed('Stores')})`, message: 'a step takes the stores it runs on as its first parameter, named `tx` (docs/architecture.md "Domain functions")' },
  { selector: `:function:has(> Identifier.params:matches(${typed('Services')})) > Identifier.params:matches(${typed('Stores')})`, message: 'one shape: an entry point takes deps and opens its reads or writes; a step takes `tx: Stores`; not both' },
  { selector: `:function > Identifier.params:not(:first-child):matches(${typed('Services')})`, message: 'an entry point takes its deps first: `(s: Services | Pick<Services, …>, …)`' },
];

export default [
  {
    ignores: [
      'node_modules/', '.next/', 'data/', 'build/', 'tmp/', 'test/artifacts/', 'next-env.d.ts',
      // SQL migrations and drizzle-kit's snapshots are generated, never linted
      'db/migrations/', 'db/pg/migrations/',
    ],
  },
  {
    files: ['**/*.{ts,tsx,mts,mjs,js}'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 'latest', sourceType: 'module' },
    plugins: { '@typescript-eslint': tseslint.plugin },
    // test/support keeps a disable comment for no-explicit-any, a rule this set does not turn on (yet)
    linterOptions: { reportUnusedDisableDirectives: 'off' },
  },
  // contract/: pure TypeScript shared by db/, server/ and app/: it imports only itself, no package, no I/O
  { ...boundary(['contract/**'], [
    [folder('server|db|app|client|test|scripts|bench|i18n'), 'contract/ imports only contract/'],
    ['^@/', 'contract/ imports only contract/ (relative paths)'],
    ['^node:', 'contract/ is pure: no node modules (no I/O)'],
    ['^[^.]', 'contract/ is pure TypeScript: no packages'],
  ]), ignores: ['contract/bcb/**'] },
  // contract/bcb/: the Banco Central's API Pix as zod schemas, shared by the /v2 procedures, the dashboard's
  // forms and the tests; zod (pure, no I/O) is the one package it may import
  boundary(['contract/bcb/**'], [
    [folder('server|db|app|client|test|scripts|bench|i18n'), 'contract/ imports only contract/'],
    ['^@/', 'contract/ imports only contract/ (relative paths)'],
    ['^node:', 'contract/ is pure: no node modules (no I/O)'],
    ['^(?!zod$)[^.]', 'contract/bcb/ imports zod and no other package'],
  ]),
  // db/: knows SQL and engines; the rules above it (server/) and the pages (app/) are not its business
  boundary(['db/**'], [
    [folder('server'), 'db/ does not import server/: shared vocabulary lives in contract/'],
    [folder('app'), 'db/ does not import app/'],
  ]),
  // app/: pages import the contract, the procedures' types and UI code; never the database or the domain
  // (server/routers' AppRouter is imported with `import type`; the zod request schemas, the pages'
  // caller, zod-issues and the config are still imported by value: moving them is the next step)
  boundary(['app/**'], [
    [folder('db'), 'app/ does not import db/: constants it needs belong in contract/'],
    [`(^|/)server/(domain|http|jobs|observability)(/|$)`, 'app/ does not import server/domain, server/http, server/jobs or server/observability: use contract/ or a procedure'],
    [`(^|/)server/(main|bootstrap|services|context|trpc|worker|rate-limit)(\\.ts)?$`, 'app/ does not import the server process: use contract/ or a procedure'],
  ]),
  // server/: the rules and the edge; SQL, engines and locks are db/'s. It opens the database (db/index.ts,
  // db/engine.ts) and reaches data only through the stores (db/stores/*), never tables or query builders.
  boundary(['server/**'], serverBoundary),
  // server/domain/: plain functions over the stores, so from db/ it takes types only (the stores' row types)
  {
    files: ['server/domain/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [
          ...serverBoundary.map(([regex, message]) => ({ regex, message })),
          { regex: folder('db'), message: 'the domain takes only types from db/ (the stores it is handed)', allowTypeImports: true },
        ],
      }],
      // the connection under the stores is db/'s (and tests' support code): the domain calls store methods
      'no-restricted-syntax': ['error', noHandle],
    },
  },
  // domain functions in one shape (docs/architecture.md "Domain functions"): an entry point takes its deps
  // (Services or a Pick of it), a step the stores it runs on as `tx`; never the database itself, never both
  {
    files: ['server/domain/**'],
    rules: {
      'no-restricted-syntax': ['error', noHandle, ...domainShape],
    },
  },
];
