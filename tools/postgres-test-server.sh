#!/usr/bin/env bash
# A throwaway PostgreSQL server for integration tests (installs nothing).
#
#   tools/postgres-test-server.sh start   # init a cluster in a mktemp dir, start it on 127.0.0.1, print the URL line
#   tools/postgres-test-server.sh env     # print AUTODIDACT_PG_URL=postgres://... of the running server
#   tools/postgres-test-server.sh stop    # stop it (fast shutdown) and delete its directory
#
# Needs Debian's `postgresql` package (apt-get install -y postgresql). initdb refuses to run as root, so as root the
# server runs as the `postgres` user (runuser); as any other user it runs as that user. Authentication is `trust`
# and the server listens on 127.0.0.1 only, with its socket inside the data directory.
# Environment: AUTODIDACT_PG_PORT (default: first free port from 54329), AUTODIDACT_PG_STATE (state file, default
# ${TMPDIR:-/tmp}/autodidact-pg-test.state).
#
# Typical use:  eval "export $(tools/postgres-test-server.sh start | tail -n 1)"; npx vitest run ...; tools/postgres-test-server.sh stop
set -euo pipefail

STATE="${AUTODIDACT_PG_STATE:-${TMPDIR:-/tmp}/autodidact-pg-test.state}"
DB=autodidact_test

bindir() {
  local d
  # Debian's versioned directory first (a pg_ctl on PATH may be a lone symlink without initdb/createdb).
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$d" ] && command -v initdb >/dev/null 2>&1; then d=$(dirname "$(command -v initdb)"); fi
  if [ -z "$d" ] || [ ! -x "$d/pg_ctl" ]; then
    echo "postgres-test-server: PostgreSQL not found; install it first (apt-get install -y postgresql)" >&2
    exit 1
  fi
  echo "$d"
}

as_owner() {
  if [ "$(id -u)" = "0" ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

url_line() {
  # shellcheck disable=SC1090
  . "$STATE"
  echo "AUTODIDACT_PG_URL=postgres://postgres@127.0.0.1:${PORT}/${DB}"
}

case "${1:-}" in
  start)
    if [ -f "$STATE" ]; then
      echo "postgres-test-server: already started ($STATE); stop it first" >&2
      url_line
      exit 0
    fi
    BIN=$(bindir)
    PORT="${AUTODIDACT_PG_PORT:-}"
    if [ -z "$PORT" ]; then
      PORT=54329
      while ! port_free "$PORT"; do PORT=$((PORT + 1)); done
    fi
    PGDATA=$(mktemp -d "${TMPDIR:-/tmp}/autodidact-pg.XXXXXX")
    chmod 700 "$PGDATA"
    if [ "$(id -u)" = "0" ]; then chown postgres:postgres "$PGDATA"; fi
    as_owner "$BIN/initdb" -D "$PGDATA" -U postgres -A trust -E UTF8 --no-locale >"$PGDATA.init.log" 2>&1 || {
      cat "$PGDATA.init.log" >&2; exit 1; }
    as_owner "$BIN/pg_ctl" -D "$PGDATA" -l "$PGDATA/server.log" -w -t 60 \
      -o "-h 127.0.0.1 -p $PORT -k $PGDATA -c fsync=off -c max_connections=50" start >/dev/null || {
      cat "$PGDATA/server.log" >&2; exit 1; }
    printf 'PGDATA=%q\nPORT=%q\nBIN=%q\n' "$PGDATA" "$PORT" "$BIN" >"$STATE"
    as_owner "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U postgres "$DB" || { "$0" stop; exit 1; }
    rm -f "$PGDATA.init.log"
    echo "postgres-test-server: PostgreSQL $("$BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT ($PGDATA)" >&2
    url_line
    ;;
  env)
    [ -f "$STATE" ] || { echo "postgres-test-server: not started" >&2; exit 1; }
    url_line
    ;;
  stop)
    [ -f "$STATE" ] || { echo "postgres-test-server: not started" >&2; exit 0; }
    # shellcheck disable=SC1090
    . "$STATE"
    as_owner "$BIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null || true
    rm -rf "$PGDATA"
    rm -f "$STATE"
    echo "postgres-test-server: stopped" >&2
    ;;
  *)
    echo "usage: $0 start|env|stop" >&2
    exit 2
    ;;
esac
