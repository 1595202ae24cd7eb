#!/usr/bin/env bash
# WOPI host benchmark: CheckFileInfo throughput and p99 at 8 and 64 connections (wrk), GetFile and
# PutFile MB/s for a 256 MiB file (curl), the server's peak RSS during PutFile, and nginx serving the
# same file from disk as the GetFile figure to aim at. Prints figures; asserts nothing. Not run in CI.
#
#   Benchmarks/host-benchmark.sh            # builds `wopi` in release mode first (~15 min on 2 cores)
#   WOPI_BIN=.build/debug/wopi Benchmarks/host-benchmark.sh   # quick run on an existing build
#
# Needs wrk, nginx and curl (Debian: apt-get install -y wrk nginx-light curl); with PostgreSQL installed
# (apt-get install -y postgresql) it also measures CheckFileInfo on the PostgreSQL store beside SQLite,
# on a throwaway server it starts in the work folder. SKIP_POSTGRES=1 leaves that out.
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in wrk nginx curl; do
  command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install -y wrk nginx-light curl" >&2; exit 2; }
done
if [ -z "${WOPI_BIN:-}" ]; then
  swift build -c release --product wopi >&2
  WOPI_BIN=.build/release/wopi
fi
WOPI_BIN=$(realpath "$WOPI_BIN")
DURATION=${DURATION:-10s}
SIZE_MIB=${SIZE_MIB:-256}
PORT=${PORT:-18480}
NGINX_PORT=$((PORT + 1))
WORK=$(mktemp -d)
SERVER_PID=""; NGINX_PID=""; PG_SERVER_PID=""; PG_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null || true
  [ -n "$PG_SERVER_PID" ] && kill "$PG_SERVER_PID" 2>/dev/null || true
  [ -n "$PG_PID" ] && kill -INT "$PG_PID" 2>/dev/null && sleep 1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

json() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }

"$WOPI_BIN" serve --data "$WORK/data" --port "$PORT" --max-file-size 1G --log-level warning >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVER_PID=$!
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.1; done
"$WOPI_BIN" users add bench --password benchmark-pw --data "$WORK/data" >/dev/null

echo "hello" > "$WORK/small.docx"
SMALL=$("$WOPI_BIN" files add "$WORK/small.docx" --owner bench --data "$WORK/data" | json id)
SMALL_TOKEN=$("$WOPI_BIN" token --user bench --file "$SMALL" --data "$WORK/data" | json access_token)
CFI="http://127.0.0.1:$PORT/wopi/files/$SMALL?access_token=$SMALL_TOKEN"

echo "WOPIKit host benchmark — $(nproc) cores, binary $(basename "$(dirname "$WOPI_BIN")")/wopi, $(date -u +%FT%TZ)"
echo
check_file_info() { # $1: label, $2: URL
  for connections in 8 64; do
    out=$(wrk -t2 -c"$connections" -d"$DURATION" --latency "$2")
    rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
    p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
    errors=$(grep -E "Non-2xx|Socket errors" <<<"$out" | tr '\n' ' ' || true)
    printf '  %-10s %3d connections: %10s requests/s   p99 %8s   %s\n' "$1" "$connections" "$rps" "$p99" "$errors"
  done
}
echo "CheckFileInfo (wrk, $DURATION, 2 threads)"
check_file_info SQLite "$CFI"

PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "${SKIP_POSTGRES:-}" ] && [ -n "$PG_BIN" ]; then
  # A throwaway cluster as an unprivileged user (initdb refuses root), durable settings left at their defaults.
  PG_PORT=$((PORT + 2)); PG_SERVER_PORT=$((PORT + 3))
  mkdir -p "$WORK/pg"; as_pg=()
  if [ "$(id -u)" = 0 ]; then chown postgres "$WORK/pg"; chmod a+x "$WORK"; as_pg=(runuser -u postgres --); fi
  "${as_pg[@]}" "$PG_BIN/initdb" -D "$WORK/pg/cluster" -U wopikit --auth=trust -E UTF8 --no-locale >/dev/null
  "${as_pg[@]}" "$PG_BIN/postgres" -D "$WORK/pg/cluster" -h 127.0.0.1 -p "$PG_PORT" -k "$WORK/pg" >"$WORK/pg/log" 2>&1 &
  for _ in $(seq 1 100); do "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" && break; sleep 0.1; done
  PG_PID=$(head -1 "$WORK/pg/cluster/postmaster.pid")
  "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U wopikit wopi
  DB="postgres://wopikit@127.0.0.1:$PG_PORT/wopi"
  "$WOPI_BIN" serve --database "$DB" --data "$WORK/pgdata" --port "$PG_SERVER_PORT" --log-level warning >"$WORK/pgserve.out" 2>"$WORK/pgserve.err" &
  PG_SERVER_PID=$!
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PG_SERVER_PORT/health" >/dev/null && break; sleep 0.1; done
  "$WOPI_BIN" users add bench --password benchmark-pw --database "$DB" >/dev/null
  PG_SMALL=$("$WOPI_BIN" files add "$WORK/small.docx" --owner bench --database "$DB" --data "$WORK/pgdata" | json id)
  PG_TOKEN=$("$WOPI_BIN" token --user bench --file "$PG_SMALL" --database "$DB" | json access_token)
  check_file_info PostgreSQL "http://127.0.0.1:$PG_SERVER_PORT/wopi/files/$PG_SMALL?access_token=$PG_TOKEN"
  kill "$PG_SERVER_PID"; PG_SERVER_PID=""
else
  if [ -n "${SKIP_POSTGRES:-}" ]; then why="SKIP_POSTGRES is set"; else why="PostgreSQL is not installed: apt-get install -y postgresql"; fi
  echo "  PostgreSQL: not measured ($why)"
fi

echo
echo "GetFile / PutFile, ${SIZE_MIB} MiB"
head -c $((SIZE_MIB * 1024 * 1024)) /dev/urandom > "$WORK/big.bin"
BIG=$("$WOPI_BIN" files add "$WORK/big.bin" --owner bench --name big.docx --data "$WORK/data" | json id)
BIG_TOKEN=$("$WOPI_BIN" token --user bench --file "$BIG" --data "$WORK/data" | json access_token)
BIG_URL="http://127.0.0.1:$PORT/wopi/files/$BIG"

mbps() { python3 -c "print(f'{$SIZE_MIB / float($1):8.1f}')"; }
best_get=999999
for _ in 1 2 3; do
  t=$(curl -s -o /dev/null -w '%{time_total}' "$BIG_URL/contents?access_token=$BIG_TOKEN")
  best_get=$(python3 -c "print(min($best_get, $t))")
done
echo "  GetFile: $(mbps "$best_get") MB/s (best of 3)"

curl -sf -X POST -H "X-WOPI-Override: LOCK" -H "X-WOPI-Lock: bench" "$BIG_URL?access_token=$BIG_TOKEN" >/dev/null
rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$SERVER_PID/status"; }
echo "$(rss_kib)" > "$WORK/rss"
( while kill -0 "$SERVER_PID" 2>/dev/null; do rss_kib >> "$WORK/rss"; sleep 0.05; done ) &
SAMPLER=$!
before=$(rss_kib)
best_put=999999
for _ in 1 2 3; do
  t=$(curl -s -o /dev/null -w '%{time_total}' -X POST -H "X-WOPI-Override: PUT" -H "X-WOPI-Lock: bench" \
      --data-binary @"$WORK/big.bin" "$BIG_URL/contents?access_token=$BIG_TOKEN")
  best_put=$(python3 -c "print(min($best_put, $t))")
done
kill "$SAMPLER" 2>/dev/null || true
peak=$(sort -n "$WORK/rss" | tail -1)
echo "  PutFile: $(mbps "$best_put") MB/s (best of 3)"
echo "  server RSS: $((before / 1024)) MiB before PutFile, peak $((peak / 1024)) MiB during 3 × ${SIZE_MIB} MiB PutFile"

mkdir -p "$WORK/nginx/logs" "$WORK/www"
cp "$WORK/big.bin" "$WORK/www/big.bin"
chmod a+rx "$WORK" "$WORK/www"; chmod a+r "$WORK/www/big.bin"   # nginx's worker runs unprivileged
cat > "$WORK/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log;
events { worker_connections 256; }
http {
  access_log off;
  sendfile on;
  server { listen 127.0.0.1:$NGINX_PORT; root $WORK/www; }
}
CONF
nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" &
NGINX_PID=$!
for _ in $(seq 1 50); do curl -sf -o /dev/null "http://127.0.0.1:$NGINX_PORT/big.bin" && break; sleep 0.1; done
best_nginx=999999
for _ in 1 2 3; do
  read -r t bytes < <(curl -s -o /dev/null -w '%{time_total} %{size_download}\n' "http://127.0.0.1:$NGINX_PORT/big.bin")
  [ "$bytes" = "$((SIZE_MIB * 1024 * 1024))" ] || { echo "nginx served $bytes bytes, not the file; see $WORK/nginx/logs" >&2; exit 1; }
  best_nginx=$(python3 -c "print(min($best_nginx, $t))")
done
echo "  nginx, same file from disk: $(mbps "$best_nginx") MB/s — WOPIKit GetFile reaches $(python3 -c "print(f'{$best_nginx / $best_get * 100:.0f}')")% of it"
