#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the store tests (test/helpers/engines.ts reads OCDB_TEST_PG_URL).
#   eval "$(bash test/support/pgCluster.sh start)"   # initdb + pg_ctl start in a temp dir, prints the exports
#   bash test/support/pgCluster.sh stop <dir>         # stops it and removes the dir (OCDB_TEST_PG_DIR)
# Needs Debian's `postgresql` package (apt-get install -y postgresql). Runs the server as a non-root user (initdb
# refuses root): `postgres` when run as root, else the current user. Listens on 127.0.0.1 only, on a free port
# (or $OCDB_TEST_PG_PORT), with password (scram) authentication for the role `ocdb`.
set -euo pipefail
cmd="${1:-start}"
bindir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
if [ -z "$bindir" ] && command -v pg_ctl >/dev/null; then bindir="$(dirname "$(command -v pg_ctl)")"; fi
if [ -z "$bindir" ]; then
  echo "pgCluster: no PostgreSQL server binaries (apt-get install -y postgresql)" >&2
  exit 1
fi
as_user() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case "$cmd" in
  start)
    dir="$(mktemp -d /tmp/ocdb-pg.XXXXXX)"
    chmod 755 "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    port="${OCDB_TEST_PG_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 55432)}"
    password="ocdb-test-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
    printf '%s\n' "$password" >"$dir/pwfile"
    [ "$(id -u)" = 0 ] && chown postgres "$dir/pwfile"
    as_user "$bindir/initdb" -D "$dir/data" -U ocdb --pwfile="$dir/pwfile" --auth=scram-sha-256 -E UTF8 \
      --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    rm -f "$dir/pwfile"
    as_user "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=200 -c fsync=off" start >/dev/null \
      || { cat "$dir/server.log" >&2; exit 1; }
    echo "export OCDB_TEST_PG_URL='postgres://ocdb:$password@127.0.0.1:$port/postgres'"
    echo "export OCDB_TEST_PG_DIR='$dir'"
    ;;
  stop)
    dir="${2:-${OCDB_TEST_PG_DIR:-}}"
    [ -n "$dir" ] && [ -d "$dir/data" ] || { echo "pgCluster: no cluster dir given" >&2; exit 1; }
    as_user "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    rm -rf "$dir"
    ;;
  *)
    echo "usage: pgCluster.sh start | stop <dir>" >&2
    exit 2
    ;;
esac
