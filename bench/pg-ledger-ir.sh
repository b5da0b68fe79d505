#!/bin/bash
# bench/pg-ledger-ir.sh: PostgreSQL's instructions per ledger entry (callgrind), exact and repeatable on a
# shared machine where CPU time is not. Sets up the databases of bench/pg-ledger.ts (PGLB_DBS, default this
# tree and /work/main), copies the cluster's data, and runs each database's rounds in a single-user backend
# under valgrind: (warm-up + PGLB_GROUPS groups) minus (warm-up alone), divided by the entries.
# Needs valgrind and Debian's postgresql (PG_BIN); run as root (the backend runs as the postgres user).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}
work=$(mktemp -d /tmp/pg-ledger-ir.XXXXXX); chmod 755 "$work"
groups=${PGLB_GROUPS:-4}; w=${PGLB_W:-32}
PGLB_COPY="$work/data" PGLB_GROUPS=$groups npx tsx "$here/bench/pg-ledger.ts" >/dev/null
chown -R postgres "$work"
ir() { # <db> <sql file>: instructions of a backend running the file on a fresh copy of the data
  local t="$work/run.$RANDOM" out="$work/cg.$RANDOM"
  cp -a "$work/data" "$t"; touch "$out"; chown postgres "$out"
  runuser -u postgres -- valgrind --tool=callgrind --callgrind-out-file="$out" "$bin/postgres" --single -j -D "$t" \
    -c synchronous_commit=off "$1" < "$2" > "$out.log" 2>&1
  if grep -q ERROR "$out.log"; then grep ERROR "$out.log" >&2; exit 1; fi
  grep -E '^totals' "$out" | awk '{print $2}'; rm -rf "$t" "$out" "$out.log"
}
for name in $(echo "${PGLB_DBS:-main:/work/main,this:$here}" | tr ',' '\n' | cut -d: -f1); do
  a=$(ir "lb_$name" "$work/data.warm.sql"); b=$(ir "lb_$name" "$work/data.run.sql")
  echo "$name: $(( (b - a) / (groups * w) )) instructions per ledger entry (PostgreSQL backend, callgrind)"
done
rm -rf "$work"
