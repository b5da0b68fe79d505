#!/usr/bin/env bash
# Regenerates db/migrations from db/schema with drizzle-kit, then makes every table STRICT (drizzle-kit
# cannot emit it) and appends the hand-written triggers. Until the first release the migrations are
# squashed into one initial migration; flock keeps two engineers from regenerating at once.
# The PostgreSQL engine's migrations (db/pg/migrations, from db/pg/schema and db/pg/sql/triggers.sql)
# are regenerated in the same run, so the two engines never drift apart by a forgotten command.
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

if [ "${1:-}" != "--append" ]; then rm -rf db/pg/migrations; fi
npx drizzle-kit generate --config drizzle.pg.config.ts --name=schema >/dev/null
# the limits' tables (db/pg/schema/limits.ts) are UNLOGGED: written on every request, and losing them in a
# crash only resets the limits (drizzle-kit cannot emit it)
for f in db/pg/migrations/*.sql; do
  perl -pi -e 's/^CREATE TABLE "(limit_\w+)"/CREATE UNLOGGED TABLE "$1"/' "$f"
done
if [ "${1:-}" != "--append" ]; then
  npx drizzle-kit generate --config drizzle.pg.config.ts --custom --name=ledger_triggers >/dev/null
  trig=$(ls db/pg/migrations/*_ledger_triggers.sql)
  cat db/pg/sql/triggers.sql > "$trig"
fi
ls db/pg/migrations
