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
  boundary(['contract/**'], [
    [folder('server|db|app|client|test|scripts|bench|i18n'), 'contract/ imports only contract/'],
    ['^@/', 'contract/ imports only contract/ (relative paths)'],
    ['^node:', 'contract/ is pure: no node modules (no I/O)'],
    ['^[^.]', 'contract/ is pure TypeScript: no packages'],
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
  // Not yet enforced (it would fail today): server/domain/** ↛ drizzle-orm and db/schema. It holds once
  // the stores of the data-layer refactor exist (db/stores/*); then add:
  // boundary(['server/domain/**'], [['^drizzle-orm', 'the domain asks the stores'], [folder('db'), 'the domain asks the stores']]),
];
