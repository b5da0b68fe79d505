#!/usr/bin/env bash
# The one test command (`npm test`): type-check, production build of the pages, then every test —
# unit, API, end-to-end over HTTP and the dashboard in headless Chromium. Browser tests are never
# skipped: Chromium is installed with apt when missing (as root), or the run stops saying why. The same
# holds for PostgreSQL (Debian's postgresql package): its tests start a throwaway cluster of their own.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "Installing Debian's chromium for the browser tests…"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "The browser tests need Debian's chromium at /usr/bin/chromium." >&2
    echo "Install it first: sudo apt-get update && sudo apt-get install -y chromium" >&2
    exit 1
  fi
fi

if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "Installing Debian's postgresql for the PostgreSQL tests…"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  else
    echo "The PostgreSQL tests need Debian's postgresql (15 or later) under /usr/lib/postgresql." >&2
    echo "Install it first: sudo apt-get update && sudo apt-get install -y postgresql" >&2
    exit 1
  fi
fi

echo "== type-check"
node node_modules/typescript/bin/tsc --noEmit -p .
echo "== next build"
NEXT_TELEMETRY_DISABLED=1 node node_modules/next/dist/bin/next build > /tmp/pix-next-build.log 2>&1 || { cat /tmp/pix-next-build.log; exit 1; }
tail -n 3 /tmp/pix-next-build.log
echo "== vitest"
exec node node_modules/vitest/vitest.mjs run "$@"
