#!/usr/bin/env bash
# Appends a migration on each engine for a schema change, with drizzle-kit: db/migrations from
# db/schema/sqlite.ts (every new table made STRICT, which drizzle-kit cannot emit) and db/pg/migrations from
# db/pg/schema (the limits' tables UNLOGGED): both build the tables declared once in db/schema/tables.ts,
# in the same run so the two engines never drift apart.
# Release 0.1.0 has shipped: a migration that exists made operators' databases and is never rewritten,
# so only the files this run creates are touched (CHANGELOG.md). flock keeps two engineers from
# generating at once.
set -euo pipefail
cd "$(dirname "$0")/.."
exec 9>/tmp/pix-payments-db-generate.lock
flock 9

before=$(ls db/migrations/*.sql db/pg/migrations/*.sql)
is_new() { ! grep -qxF "$1" <<<"$before"; }

npx drizzle-kit generate --name=schema >/dev/null
for f in db/migrations/*.sql; do
  is_new "$f" || continue
  # every CREATE TABLE statement ends with "\n);" in drizzle-kit's output
  perl -0pi -e 's/\n\);(\n|$)/\n) STRICT;$1/g' "$f"
done
ls db/migrations

npx drizzle-kit generate --config drizzle.pg.config.ts --name=schema >/dev/null
# the limits' tables (db/schema/limits.ts) are UNLOGGED: written on every request, and losing them in a
# crash only resets the limits (drizzle-kit cannot emit it)
for f in db/pg/migrations/*.sql; do
  is_new "$f" || continue
  perl -pi -e 's/^CREATE TABLE "(limit_\w+)"/CREATE UNLOGGED TABLE "$1"/' "$f"
done
ls db/pg/migrations
echo "New migrations are appended; add triggers or data steps to them by hand, and say what changed in CHANGELOG.md."
