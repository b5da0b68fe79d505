#!/usr/bin/env bash
# The one test command (`npm test`): type-check, lint (the import boundaries), production build of the pages, then every test —
# unit, API, end-to-end over HTTP and the dashboard in headless Chromium. Browser tests are never
# skipped: Chromium is installed with apt when missing (as root), or the run stops saying why. The same
# holds for PostgreSQL (Debian's postgresql package): its tests start a throwaway cluster of their own.
set -euo pipefail
cd "$(dirname "$0")/.."

# require_package PACKAGE WHAT INSTALLED_TEST…: installs Debian's PACKAGE with apt when INSTALLED_TEST
# fails and we are root, otherwise stops saying how to install it.
require_package() {
  local package=$1 what=$2; shift 2
  if "$@" >/dev/null 2>&1; then return; fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "Installing Debian's $package for $what…"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package" >/dev/null
  else
    echo "$what need Debian's $package." >&2
    echo "Install it first: sudo apt-get update && sudo apt-get install -y $package" >&2
    exit 1
  fi
}
require_package chromium "the browser tests" test -x /usr/bin/chromium
# PostgreSQL 15 or later, as the Debian package installs it (scripts/lib/throwaway-postgres.ts looks there)
require_package postgresql "the PostgreSQL tests" bash -c 'ls /usr/lib/postgresql/*/bin/postgres'
# the load balancer of `npm run cluster` (test/e2e/cluster.test.ts, in the PostgreSQL run)
require_package haproxy "the cluster test" test -x /usr/sbin/haproxy

# The three static checks side by side (each is one single-threaded process; two cores), each into its
# own log, printed in order; the run stops if any of them failed.
checks=$(mktemp -d)
node node_modules/typescript/bin/tsc --noEmit -p . > "$checks/type-check" 2>&1 & tsc_pid=$!
# the import boundaries (eslint.config.mjs): a page importing the database, db/ importing server/…
node node_modules/eslint/bin/eslint.js . > "$checks/lint" 2>&1 & lint_pid=$!
node node_modules/tsx/dist/cli.mjs scripts/import-cycles.ts > "$checks/import-cycles" 2>&1 & cycles_pid=$!
failed=0
for check in type-check:$tsc_pid lint:$lint_pid import-cycles:$cycles_pid; do
  name=${check%%:*}
  if wait "${check##*:}"; then echo "== $name"; else echo "== $name: FAILED"; failed=1; fi
  cat "$checks/$name"
done
rm -rf "$checks"
[ "$failed" = 0 ] || exit 1
echo "== next build"
NEXT_TELEMETRY_DISABLED=1 node node_modules/next/dist/bin/next build > /tmp/pix-next-build.log 2>&1 || { cat /tmp/pix-next-build.log; exit 1; }
tail -n 3 /tmp/pix-next-build.log
echo "== vitest"
node node_modules/vitest/vitest.mjs run "$@"
# the same service on PostgreSQL: the files of vitest.pg.config.ts, on one throwaway cluster for the run
# (a database per file and per server: test/support/pg-global.ts)
# (skipped when the run was narrowed to some files)
if [ "$#" -eq 0 ]; then
  # the timing tests, alone on the machine (vitest.alone.config.ts)
  echo "== vitest, alone"
  node node_modules/vitest/vitest.mjs run -c vitest.alone.config.ts
  echo "== vitest on PostgreSQL"
  node node_modules/vitest/vitest.mjs run -c vitest.pg.config.ts
  echo "== vitest on PostgreSQL, alone"
  exec node node_modules/vitest/vitest.mjs run -c vitest.pg.alone.config.ts
fi
