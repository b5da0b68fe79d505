#!/usr/bin/env bash
# Regenerates db/migrations from db/schema with drizzle-kit, then makes every table STRICT (drizzle-kit
# cannot emit it) and appends the hand-written triggers. Until the first release the migrations are
# squashed into one initial migration; flock keeps two engineers from regenerating at once.
set -euo pipefail
cd "$(dirname "$0")/.."
exec 9>/tmp/pix-payments-db-generate.lock
flock 9
if [ "${1:-}" != "--append" ]; then rm -rf db/migrations; fi
npx drizzle-kit generate --name=schema >/dev/null
for f in db/migrations/*.sql; do
  # every CREATE TABLE statement ends with "\n);" in drizzle-kit's output
  perl -0pi -e 's/\n\);(\n|$)/\n) STRICT;$1/g' "$f"
done
if [ "${1:-}" != "--append" ]; then
  npx drizzle-kit generate --custom --name=ledger_triggers >/dev/null
  trig=$(ls db/migrations/*_ledger_triggers.sql)
  cat db/sql/triggers.sql > "$trig"
fi
ls db/migrations
