# Private PostgreSQL and Redis for tests and benchmarks, on free loopback ports in a temp dir.
# Source it, call ensure_services and start_services; stop_services stops them (call it from your EXIT trap). Sets TEST_PG_URL
# and TEST_REDIS_SERVER_URL. Missing servers are installed with apt-get (as root).
# shellcheck shell=bash

pg_bindir() {
  local dir
  dir="$(pg_config --bindir 2>/dev/null || true)"
  if [ -n "$dir" ] && [ -x "$dir/initdb" ]; then echo "$dir"; return; fi
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

ensure_services() {
  local missing=()
  command -v redis-server >/dev/null || missing+=(redis-server)
  [ -n "$(pg_bindir)" ] || missing+=(postgresql)
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
      echo "missing ${missing[*]}: install them or run as root" >&2; exit 1
    fi
    printf '\n==> installing %s\n' "${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

RUN_DIR=""
stop_services() {
  [ -n "$RUN_DIR" ] || return 0
  if [ -f "$RUN_DIR/redis.pid" ]; then kill "$(cat "$RUN_DIR/redis.pid")" 2>/dev/null || true; fi
  if [ -d "$RUN_DIR/pg" ]; then as_postgres "$(pg_bindir)/pg_ctl" -D "$RUN_DIR/pg" -m immediate stop >/dev/null 2>&1 || true; fi
  rm -rf "$RUN_DIR"
}

as_postgres() {
  # PostgreSQL refuses to run as root.
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start_services() {
  RUN_DIR="$(mktemp -d /tmp/langbot-test.XXXXXX)"
  chmod 755 "$RUN_DIR"
  REDIS_PORT="$(free_port)"
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$RUN_DIR" --daemonize yes --pidfile "$RUN_DIR/redis.pid" --logfile "$RUN_DIR/redis.log"

  PG_PORT="$(free_port)"
  local bindir; bindir="$(pg_bindir)"
  mkdir -p "$RUN_DIR/pg"
  if [ "$(id -u)" -eq 0 ]; then chown postgres "$RUN_DIR/pg"; fi
  as_postgres "$bindir/initdb" -D "$RUN_DIR/pg" -U postgres -A trust --no-sync >/dev/null
  as_postgres "$bindir/pg_ctl" -D "$RUN_DIR/pg" -l "$RUN_DIR/pg/server.log" -w -o \
    "-p $PG_PORT -k $RUN_DIR/pg -c listen_addresses=127.0.0.1 -c max_connections=400 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >/dev/null
  for _ in $(seq 50); do
    redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  export TEST_PG_URL="postgres://postgres@127.0.0.1:$PG_PORT/postgres"
  export TEST_REDIS_SERVER_URL="redis://127.0.0.1:$REDIS_PORT/"
}

