#!/usr/bin/env bash
# WOPI host benchmark: every hot path of WOPIKit beside what this machine allows for it, measured
# one after the other in the same run, so the ratios hold even when the absolute figures are noisy.
# Prints figures; asserts nothing. Not run in CI.
#
#   path                          WOPIKit                          its limit, same run
#   CheckFileInfo, 8 and 64 conn  wrk, 2 threads                   Benchmarks/Floor: a bare Hummingbird route
#                                                                  answering the same JSON body
#   GetFile, 256 MiB              curl, best of 3                  nginx sendfile of the same file
#   PutFile, 256 MiB              curl, best of 3 (+ server RSS)   nginx PUT (dav module) of the same file
#                                 (both without Expect: 100-continue, then both with curl's defaults, which send it)
#   Lock + Unlock pairs           wrk, 8 connections, 8 files      —  (target: 5,000 pairs/s)
#   PostgreSQL store: CheckFileInfo at 8 and 64 conn, Lock + Unlock   `pgbench -S -M prepared` at the same connection counts;
#                                                                  the SQLite figures above (targets: ≥ 50 %, p99 ≤ 5 ms at 8);
#                                                                  Benchmarks/Floor --postgres: the bare route reading the file's
#                                                                  row (and, for Lock + Unlock, writing its lock) with the store's
#                                                                  pool settings and batching, and nothing else
#   EnumerateChildren, 50,000     curl, best of 3 (+ server RSS)   —  (target: 300 ms, flat memory)
#   CheckFileInfo, 1,000,000 files wrk, 8 connections               the same request on the small database
#
#   Benchmarks/host-benchmark.sh                # release-builds `wopi` and the floor first (~10-20 min on 2 cores)
#   Benchmarks/host-benchmark.sh --json         # the same, then one JSON object with every figure on stdout
#   Benchmarks/host-benchmark.sh --compare REV  # REV against the working tree: each path's median ratio new/old
#                                               # over ROUNDS (default 3) alternating runs (Benchmarks/compare-benchmark.sh)
#   WOPI_BIN=.build-release/release/wopi FLOOR_BIN=Benchmarks/Floor/.build/release/floor Benchmarks/host-benchmark.sh
#
# Environment: DURATION (wrk, default 10s), SIZE_MIB (default 256), PORT (default 18480, uses the next 5
# too), SKIP_POSTGRES=1 (otherwise CheckFileInfo and Lock + Unlock are also measured on a throwaway PostgreSQL
# server when PostgreSQL is installed, beside pgbench), SKIP_MILLION=1 (leaves out the 1,000,000-file run, ~1 min), CHART=path.png
# (default: benchmark-<time>.png in the current folder; the path is printed).
#
# Needs wrk, nginx (with the dav module: Debian's nginx-light has it), curl, python3 and gnuplot:
#   apt-get install -y wrk nginx-light curl gnuplot-nox
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

JSON_OUTPUT=""; COMPARE=""
while [ $# -gt 0 ]; do
  case "$1" in
    --json) JSON_OUTPUT=1 ;;
    --compare) [ $# -ge 2 ] || { echo "--compare needs a revision (a commit, branch or tag)" >&2; exit 2; }; COMPARE=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option $1 (use --json, --compare REV or --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ -n "$COMPARE" ]; then exec bash Benchmarks/compare-benchmark.sh "$COMPARE" ${JSON_OUTPUT:+--json}; fi
# With --json the report goes to stderr and stdout carries only the JSON object.
if [ -n "$JSON_OUTPUT" ]; then exec 3>&1 1>&2; fi

for tool in wrk nginx curl python3 gnuplot; do
  command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install -y wrk nginx-light curl python3 gnuplot-nox" >&2; exit 2; }
done
nginx -V 2>&1 | grep -q -- --with-http_dav_module || { echo "this nginx lacks the dav module (PUT): apt-get install -y nginx-light" >&2; exit 2; }

if [ -z "${WOPI_BIN:-}" ]; then
  swift build -c release --product wopi --scratch-path .build-release >&2
  WOPI_BIN=.build-release/release/wopi
fi
if [ -z "${FLOOR_BIN:-}" ]; then
  (cd Benchmarks/Floor && swift build -c release >&2)
  FLOOR_BIN=Benchmarks/Floor/.build/release/floor
fi
WOPI_BIN=$(realpath "$WOPI_BIN"); FLOOR_BIN=$(realpath "$FLOOR_BIN")
DURATION=${DURATION:-10s}
SIZE_MIB=${SIZE_MIB:-256}
PORT=${PORT:-18480}
NGINX_PORT=$((PORT + 1)); FLOOR_PORT=$((PORT + 4))
CHART=${CHART:-$ROOT/benchmark-$(date -u +%Y%m%dT%H%M%SZ).png}
WORK=$(mktemp -d)
SERVER_PID=""; NGINX_PID=""; PG_SERVER_PID=""; PG_PID=""; FLOOR_PID=""; SAMPLER=""
cleanup() {
  for pid in "$SAMPLER" "$SERVER_PID" "$NGINX_PID" "$PG_SERVER_PID" "$FLOOR_PID"; do
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  [ -n "$PG_PID" ] && kill -INT "$PG_PID" 2>/dev/null && sleep 1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

json() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
# Every figure goes into results.json as it is measured: `record key value` (value is a number or a quoted string).
echo '{}' > "$WORK/results.json"
record() { python3 - "$WORK/results.json" "$1" "$2" <<'PY'
import json, sys
path, key, value = sys.argv[1:]
data = json.load(open(path))
try: data[key] = json.loads(value)
except ValueError: data[key] = value
json.dump(data, open(path, "w"))
PY
}
ratio() { python3 -c "print(round(100 * $1 / $2, 1) if $2 else 0)"; }
wait_for() { for _ in $(seq 1 200); do curl -sf -o /dev/null "$1" && return 0; sleep 0.05; done; echo "nothing answers at $1" >&2; exit 1; }
rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
# Samples a process's RSS into a file until stopped: start_rss PID FILE; stop_rss.
start_rss() { rss_kib "$1" > "$2"; ( while kill -0 "$1" 2>/dev/null; do rss_kib "$1" >> "$2"; sleep 0.02; done ) & SAMPLER=$!; }
stop_rss() { kill "$SAMPLER" 2>/dev/null || true; wait "$SAMPLER" 2>/dev/null || true; SAMPLER=""; }
peak_mib() { sort -n "$1" | tail -1 | awk '{printf "%.0f", $1 / 1024}'; }

# wrk: `run_wrk label URL connections [threads] [script]` sets RPS and P99_MS.
run_wrk() {
  local threads=${4:-2} script=()
  [ -n "${5:-}" ] && script=(-s "$5")
  local out
  out=$(wrk -t"$threads" -c"$3" -d"$DURATION" --latency "${script[@]}" "$2")
  RPS=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  P99_MS=$(awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us$/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms$/,"",v)} else if (v ~ /s$/) {sub(/s$/,"",v); v*=1000}; printf "%.2f", v}' <<<"$out")
  local errors
  errors=$(grep -E "Non-2xx|Socket errors" <<<"$out" | tr '\n' ' ' || true)
  printf '  %-34s %3d connections: %10s req/s   p99 %7s ms   %s\n' "$1" "$3" "$RPS" "$P99_MS" "$errors"
  [ -z "$errors" ] || echo "  (errors above: the figure counts failed requests too)"
}

"$WOPI_BIN" serve --data "$WORK/data" --port "$PORT" --max-file-size 1G --log-level warning >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVER_PID=$!
wait_for "http://127.0.0.1:$PORT/health"
"$WOPI_BIN" users add bench --password benchmark-pw --data "$WORK/data" >/dev/null

echo "hello" > "$WORK/small.docx"
SMALL=$("$WOPI_BIN" files add "$WORK/small.docx" --owner bench --data "$WORK/data" | json id)
SMALL_TOKEN=$("$WOPI_BIN" token --user bench --file "$SMALL" --data "$WORK/data" | json access_token)
CFI="http://127.0.0.1:$PORT/wopi/files/$SMALL?access_token=$SMALL_TOKEN"
curl -sf "$CFI" > "$WORK/check-file-info.json"

"$FLOOR_BIN" --port "$FLOOR_PORT" --body "$WORK/check-file-info.json" >"$WORK/floor.out" 2>&1 &
FLOOR_PID=$!
FLOOR_URL="http://127.0.0.1:$FLOOR_PORT/wopi/files/$SMALL?access_token=$SMALL_TOKEN"
wait_for "$FLOOR_URL"
[ "$(curl -s "$FLOOR_URL" | wc -c)" = "$(wc -c < "$WORK/check-file-info.json")" ] || { echo "the floor's body differs in size" >&2; exit 1; }

MACHINE="$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(uname -sr)"
echo "WOPIKit host benchmark — $MACHINE, $(date -u +%FT%TZ)"
echo "binary $WOPI_BIN; wrk $DURATION per figure; CheckFileInfo body $(wc -c < "$WORK/check-file-info.json") bytes"
record date "\"$(date -u +%FT%TZ)\""; record machine "\"$MACHINE\""; record duration "\"$DURATION\""
echo
echo "CheckFileInfo (wrk, 2 threads) — WOPIKit on SQLite, then the floor (bare Hummingbird route, same body)"
for connections in 8 64; do
  run_wrk "WOPIKit CheckFileInfo" "$CFI" "$connections"; W_RPS=$RPS; W_P99=$P99_MS
  run_wrk "floor (bare route)" "$FLOOR_URL" "$connections"; F_RPS=$RPS; F_P99=$P99_MS
  R=$(ratio "$W_RPS" "$F_RPS")
  echo "  → WOPIKit reaches $R% of the floor at $connections connections"
  record "cfi_${connections}_rps" "$W_RPS"; record "cfi_${connections}_p99_ms" "$W_P99"
  record "floor_${connections}_rps" "$F_RPS"; record "floor_${connections}_p99_ms" "$F_P99"; record "cfi_${connections}_percent_of_floor" "$R"
done
kill "$FLOOR_PID"; FLOOR_PID=""

echo
echo "Lock + Unlock (wrk, 8 threads × 1 connection, each on its own file, alternating LOCK and UNLOCK)"
# lock_script FILE PATH…: one connection per thread, so a thread's requests are strictly sequential: LOCK, UNLOCK, LOCK, …
lock_script() {
  local file=$1; shift
  cat > "$file" <<LUA
local paths = { $(IFS=,; echo "$*") }
local next_index = 1
function setup(thread)
  thread:set("path", paths[next_index])
  next_index = next_index + 1
end
-- The next operation follows the last answer, so the pair stays in step whatever wrk sends first.
local lock_next = true
function request()
  local operation = lock_next and "LOCK" or "UNLOCK"
  return wrk.format("POST", path, { ["X-WOPI-Override"] = operation, ["X-WOPI-Lock"] = "benchmark-lock", ["Content-Length"] = "0" })
end
function response(status, headers, body)
  if status == 200 then lock_next = not lock_next else lock_next = true end
end
LUA
}
LOCK_PATHS=()
for index in $(seq 1 8); do
  id=$("$WOPI_BIN" files add "$WORK/small.docx" --owner bench --name "lock-$index.docx" --data "$WORK/data" | json id)
  token=$("$WOPI_BIN" token --user bench --file "$id" --data "$WORK/data" | json access_token)
  LOCK_PATHS+=("\"/wopi/files/$id?access_token=$token\"")
done
lock_script "$WORK/lock-pairs.lua" "${LOCK_PATHS[@]}"
run_wrk "Lock/Unlock requests" "http://127.0.0.1:$PORT" 8 8 "$WORK/lock-pairs.lua"
PAIRS=$(python3 -c "print(round($RPS / 2))")
echo "  → $PAIRS Lock + Unlock pairs per second (target 5,000)"
record lock_unlock_pairs_per_s "$PAIRS"; record lock_unlock_p99_ms "$P99_MS"

echo
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "${SKIP_POSTGRES:-}" ] && [ -n "$PG_BIN" ]; then
  echo "PostgreSQL store (a throwaway cluster with default durable settings), beside the database's own limit"
  # A throwaway cluster as an unprivileged user (initdb refuses root), durable settings left at their defaults.
  PG_PORT=$((PORT + 2)); PG_SERVER_PORT=$((PORT + 3))
  mkdir -p "$WORK/pg"; as_pg=()
  if [ "$(id -u)" = 0 ]; then chown postgres "$WORK/pg"; chmod a+x "$WORK"; as_pg=(runuser -u postgres --); fi
  "${as_pg[@]}" "$PG_BIN/initdb" -D "$WORK/pg/cluster" -U wopikit --auth=trust -E UTF8 --no-locale >/dev/null
  "${as_pg[@]}" "$PG_BIN/postgres" -D "$WORK/pg/cluster" -h 127.0.0.1 -p "$PG_PORT" -k "$WORK/pg" -c max_connections=200 >"$WORK/pg/log" 2>&1 &
  for _ in $(seq 1 100); do "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" && break; sleep 0.1; done
  PG_PID=$(head -1 "$WORK/pg/cluster/postmaster.pid")
  "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U wopikit wopi
  # The database's own limit for point lookups: pgbench's select-only script over prepared statements.
  "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U wopikit pgbench
  "$PG_BIN/pgbench" -q -i -s 1 -h 127.0.0.1 -p "$PG_PORT" -U wopikit pgbench >/dev/null 2>&1
  for connections in 8 64; do
    PGB_TPS=$("$PG_BIN/pgbench" -S -M prepared -c "$connections" -j 2 -T "${DURATION%s}" -h 127.0.0.1 -p "$PG_PORT" -U wopikit pgbench 2>/dev/null \
      | awk '/^tps/ {printf "%.0f", $3; exit}')
    printf '  %-34s %3d connections: %10s tps\n' "pgbench -S -M prepared" "$connections" "$PGB_TPS"
    record "pgbench_${connections}_tps" "$PGB_TPS"
  done
  DB="postgres://wopikit@127.0.0.1:$PG_PORT/wopi"
  "$WOPI_BIN" serve --database "$DB" --data "$WORK/pgdata" --port "$PG_SERVER_PORT" --log-level warning >"$WORK/pgserve.out" 2>"$WORK/pgserve.err" &
  PG_SERVER_PID=$!
  wait_for "http://127.0.0.1:$PG_SERVER_PORT/health"
  "$WOPI_BIN" users add bench --password benchmark-pw --database "$DB" --data "$WORK/pgdata" >/dev/null
  PG_SMALL=$("$WOPI_BIN" files add "$WORK/small.docx" --owner bench --database "$DB" --data "$WORK/pgdata" | json id)
  PG_TOKEN=$("$WOPI_BIN" token --user bench --file "$PG_SMALL" --database "$DB" --data "$WORK/pgdata" | json access_token)
  # The PostgreSQL floor: what a route that only reads its file's row, as the store reads it, allows on this machine.
  "$FLOOR_BIN" --port "$FLOOR_PORT" --body "$WORK/check-file-info.json" --postgres "$DB" >"$WORK/pgfloor.out" 2>&1 &
  FLOOR_PID=$!
  PG_FLOOR_URL="http://127.0.0.1:$FLOOR_PORT/wopi/files/$PG_SMALL"
  wait_for "$PG_FLOOR_URL"
  for connections in 8 64; do
    run_wrk "WOPIKit CheckFileInfo, PostgreSQL" "http://127.0.0.1:$PG_SERVER_PORT/wopi/files/$PG_SMALL?access_token=$PG_TOKEN" "$connections"
    PG_RPS=$RPS
    record "cfi_postgres_${connections}_rps" "$RPS"; record "cfi_postgres_${connections}_p99_ms" "$P99_MS"
    run_wrk "PostgreSQL floor (bare route)" "$PG_FLOOR_URL" "$connections"; PF_RPS=$RPS
    SQLITE_RPS=$(python3 -c "import json; print(json.load(open('$WORK/results.json'))['cfi_${connections}_rps'])")
    PGB_TPS=$(python3 -c "import json; print(json.load(open('$WORK/results.json'))['pgbench_${connections}_tps'])")
    R=$(ratio "$PG_RPS" "$SQLITE_RPS"); FR=$(ratio "$PF_RPS" "$SQLITE_RPS"); WF=$(ratio "$PG_RPS" "$PF_RPS")
    echo "  → $R% of CheckFileInfo on SQLite at $connections connections (target ≥ 50 %; p99 target ≤ 5 ms at 8); pgbench: $PGB_TPS tps"
    echo "    the PostgreSQL floor is $FR% of CheckFileInfo on SQLite; WOPIKit on PostgreSQL reaches $WF% of that floor"
    record "cfi_postgres_${connections}_percent_of_sqlite" "$R"; record "pg_floor_${connections}_rps" "$PF_RPS"
    record "pg_floor_${connections}_percent_of_sqlite" "$FR"; record "cfi_postgres_${connections}_percent_of_pg_floor" "$WF"
  done
  PG_LOCK_PATHS=()
  for index in $(seq 1 8); do
    id=$("$WOPI_BIN" files add "$WORK/small.docx" --owner bench --name "lock-$index.docx" --database "$DB" --data "$WORK/pgdata" | json id)
    token=$("$WOPI_BIN" token --user bench --file "$id" --database "$DB" --data "$WORK/pgdata" | json access_token)
    PG_LOCK_PATHS+=("\"/wopi/files/$id?access_token=$token\"")
  done
  lock_script "$WORK/pg-lock-pairs.lua" "${PG_LOCK_PATHS[@]}"
  run_wrk "Lock/Unlock requests, PostgreSQL" "http://127.0.0.1:$PG_SERVER_PORT" 8 8 "$WORK/pg-lock-pairs.lua"
  PG_PAIRS=$(python3 -c "print(round($RPS / 2))")
  R=$(ratio "$PG_PAIRS" "$PAIRS")
  echo "  → $PG_PAIRS Lock + Unlock pairs per second on PostgreSQL: $R% of SQLite's $PAIRS (target ≥ 50 %)"
  record pg_lock_unlock_pairs_per_s "$PG_PAIRS"; record pg_lock_unlock_percent_of_sqlite "$R"
  run_wrk "PostgreSQL floor, Lock/Unlock" "http://127.0.0.1:$FLOOR_PORT" 8 8 "$WORK/pg-lock-pairs.lua"
  PF_PAIRS=$(python3 -c "print(round($RPS / 2))")
  FR=$(ratio "$PF_PAIRS" "$PAIRS"); WF=$(ratio "$PG_PAIRS" "$PF_PAIRS")
  echo "    the PostgreSQL floor: $PF_PAIRS pairs per second, $FR% of SQLite's; WOPIKit on PostgreSQL reaches $WF% of that floor"
  record pg_floor_lock_unlock_pairs_per_s "$PF_PAIRS"; record pg_floor_lock_unlock_percent_of_sqlite "$FR"
  record pg_lock_unlock_percent_of_pg_floor "$WF"
  kill "$PG_SERVER_PID" "$FLOOR_PID"; PG_SERVER_PID=""; FLOOR_PID=""
else
  if [ -n "${SKIP_POSTGRES:-}" ]; then why="SKIP_POSTGRES is set"; else why="PostgreSQL is not installed: apt-get install -y postgresql"; fi
  echo "  PostgreSQL: not measured ($why)"
fi

echo
echo "GetFile / PutFile, ${SIZE_MIB} MiB (curl, best of 3), against nginx on the same file"
head -c $((SIZE_MIB * 1024 * 1024)) /dev/urandom > "$WORK/big.bin"
BIG=$("$WOPI_BIN" files add "$WORK/big.bin" --owner bench --name big.docx --data "$WORK/data" | json id)
BIG_TOKEN=$("$WOPI_BIN" token --user bench --file "$BIG" --data "$WORK/data" | json access_token)
BIG_URL="http://127.0.0.1:$PORT/wopi/files/$BIG"

mkdir -p "$WORK/nginx/logs" "$WORK/nginx/body" "$WORK/www/put"
cp "$WORK/big.bin" "$WORK/www/big.bin"
chmod a+rx "$WORK" "$WORK/www"; chmod a+r "$WORK/www/big.bin"   # nginx's worker runs unprivileged
chmod a+rwx "$WORK/www/put" "$WORK/nginx/body"
cat > "$WORK/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log;
events { worker_connections 256; }
http {
  access_log off;
  sendfile on;
  client_max_body_size 2g;
  client_body_temp_path $WORK/nginx/body;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    root $WORK/www;
    location /put/ { dav_methods PUT; create_full_put_path on; }
  }
}
CONF
nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" &
NGINX_PID=$!
wait_for "http://127.0.0.1:$NGINX_PORT/big.bin"

mbps() { python3 -c "print(round($SIZE_MIB * 1.048576 / float($1), 1))"; }   # MB/s (10^6 bytes)
best_of_3() { # a curl command; prints the best time_total
  local best=999999 t
  for _ in 1 2 3; do
    t=$("$@" -s -o /dev/null -w '%{time_total}')
    best=$(python3 -c "print(min($best, $t))")
  done
  echo "$best"
}
T=$(best_of_3 curl "$BIG_URL/contents?access_token=$BIG_TOKEN"); GET_W=$(mbps "$T")
T=$(best_of_3 curl "http://127.0.0.1:$NGINX_PORT/big.bin"); GET_N=$(mbps "$T")
GET_R=$(ratio "$GET_W" "$GET_N")
printf '  %-34s %10s MB/s\n  %-34s %10s MB/s   → %s%%\n' "WOPIKit GetFile" "$GET_W" "nginx sendfile" "$GET_N" "$GET_R"
record get_mbps "$GET_W"; record nginx_get_mbps "$GET_N"; record get_percent_of_nginx "$GET_R"

curl -sf -X POST -H "X-WOPI-Override: LOCK" -H "X-WOPI-Lock: bench" "$BIG_URL?access_token=$BIG_TOKEN" >/dev/null
RSS_BEFORE=$(( $(rss_kib "$SERVER_PID") / 1024 ))
start_rss "$SERVER_PID" "$WORK/rss-put"
# Both uploads without `Expect: 100-continue` first (Office's clients do not send it), then both with curl's
# defaults, which send it for large bodies: the host answers 100 Continue as soon as PutFile reads the body.
T=$(best_of_3 curl -H "Expect:" -X POST -H "X-WOPI-Override: PUT" -H "X-WOPI-Lock: bench" -T "$WORK/big.bin" "$BIG_URL/contents?access_token=$BIG_TOKEN"); PUT_W=$(mbps "$T")
stop_rss
RSS_PEAK=$(peak_mib "$WORK/rss-put")
# With curl's defaults on both sides (it sends Expect: 100-continue for a large body and waits up to 1 s for 100 Continue).
T=$(best_of_3 curl -X POST -H "X-WOPI-Override: PUT" -H "X-WOPI-Lock: bench" -T "$WORK/big.bin" "$BIG_URL/contents?access_token=$BIG_TOKEN")
PUT_EXPECT=$(mbps "$T")
T=$(best_of_3 curl -T "$WORK/big.bin" "http://127.0.0.1:$NGINX_PORT/put/big.bin"); PUT_N_EXPECT=$(mbps "$T")
T=$(best_of_3 curl -H "Expect:" -T "$WORK/big.bin" "http://127.0.0.1:$NGINX_PORT/put/big.bin"); PUT_N=$(mbps "$T")
[ "$(stat -c %s "$WORK/www/put/big.bin")" = "$((SIZE_MIB * 1024 * 1024))" ] || { echo "nginx did not store the PUT; see $WORK/nginx/logs" >&2; exit 1; }
PUT_R=$(ratio "$PUT_W" "$PUT_N")
printf '  %-34s %10s MB/s   server RSS %s MiB before, %s MiB peak\n  %-34s %10s MB/s   → %s%%\n' \
  "WOPIKit PutFile" "$PUT_W" "$RSS_BEFORE" "$RSS_PEAK" "nginx PUT (dav, no fsync)" "$PUT_N" "$PUT_R"
PUT_EXPECT_R=$(ratio "$PUT_EXPECT" "$PUT_N_EXPECT")
printf '  %-34s %10s MB/s\n  %-34s %10s MB/s   → %s%% (target ≥ 70 %%)\n' "WOPIKit PutFile, curl's defaults" "$PUT_EXPECT" \
  "nginx PUT, curl's defaults" "$PUT_N_EXPECT" "$PUT_EXPECT_R"
record put_expect_continue_mbps "$PUT_EXPECT"; record nginx_put_expect_continue_mbps "$PUT_N_EXPECT"; record put_expect_percent_of_nginx "$PUT_EXPECT_R"
record put_mbps "$PUT_W"; record nginx_put_mbps "$PUT_N"; record put_percent_of_nginx "$PUT_R"
record put_rss_before_mib "$RSS_BEFORE"; record put_rss_peak_mib "$RSS_PEAK"
kill "$NGINX_PID"; NGINX_PID=""
rm -f "$WORK/www/big.bin" "$WORK/www/put/big.bin"

# Rows straight into the database (the host keeps running: SQLite in WAL mode takes a second writer).
# `add_rows FOLDER_NAME COUNT` adds a folder under bench's root holding COUNT files (no bodies: only listed and
# looked up); prints the folder's id and its first file's id.
add_rows() { python3 - "$WORK/data/wopi.sqlite" "$1" "$2" <<'PY'
import os, sqlite3, sys, time
path, folder, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
db = sqlite3.connect(path, timeout=60)
db.execute("BEGIN IMMEDIATE")
owner, root = db.execute("SELECT id, root_container_id FROM users WHERE name = 'bench'").fetchone()
container = os.urandom(16).hex()
db.execute("INSERT INTO containers (id, parent_id, owner_id, name) VALUES (?, ?, ?, ?)", (container, root, owner, folder))
(version,) = db.execute("SELECT value FROM version_counter").fetchone()
now = time.time()
ids = [os.urandom(16).hex() for _ in range(count)]
db.executemany("INSERT INTO files (id, container_id, owner_id, name, size, version, sha256, blob_key, modified_at) VALUES (?,?,?,?,?,?,?,?,?)",
               ((ids[i], container, owner, f"Document {i:07d}.docx", 1000 + i, version + 1 + i,
                 "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", os.urandom(16).hex(), now - i) for i in range(count)))
db.execute("UPDATE version_counter SET value = ?", (version + count,))
db.commit()
print(container, ids[0])
PY
}
[ -f "$WORK/data/wopi.sqlite" ] || { echo "no SQLite database at $WORK/data/wopi.sqlite" >&2; exit 1; }

echo
echo "EnumerateChildren of a folder with 50,000 files (curl, best of 3)"
read -r FOLDER FIRST < <(add_rows "Fifty thousand" 50000)
# `wopi token` issues file tokens; a file's ancestry answers with a token for each of its folders.
FIRST_TOKEN=$("$WOPI_BIN" token --user bench --file "$FIRST" --data "$WORK/data" | json access_token)
FOLDER_TOKEN=$(curl -sf "http://127.0.0.1:$PORT/wopi/files/$FIRST/ancestry?access_token=$FIRST_TOKEN" |
  python3 -c "import json,sys,urllib.parse as u; url=json.load(sys.stdin)['AncestorsWithRootFirst'][-1]['Url']; print(u.parse_qs(u.urlparse(url).query)['access_token'][0])")
CHILDREN="http://127.0.0.1:$PORT/wopi/containers/$FOLDER/children?access_token=$FOLDER_TOKEN"
COUNT=$(curl -sf "$CHILDREN" | python3 -c "import json,sys; print(len(json.load(sys.stdin)['ChildFiles']))")
[ "$COUNT" = 50000 ] || { echo "EnumerateChildren listed $COUNT files, not 50000" >&2; exit 1; }
RSS_BEFORE=$(( $(rss_kib "$SERVER_PID") / 1024 ))
start_rss "$SERVER_PID" "$WORK/rss-enum"
T=$(best_of_3 curl "$CHILDREN"); ENUM_MS=$(python3 -c "print(round($T * 1000))")
stop_rss
ENUM_PEAK=$(peak_mib "$WORK/rss-enum")
printf '  %-34s %10s ms   server RSS %s MiB before, %s MiB peak (target 300 ms)\n' "WOPIKit EnumerateChildren" "$ENUM_MS" "$RSS_BEFORE" "$ENUM_PEAK"
record enumerate_50k_ms "$ENUM_MS"; record enumerate_rss_before_mib "$RSS_BEFORE"; record enumerate_rss_peak_mib "$ENUM_PEAK"

if [ -z "${SKIP_MILLION:-}" ]; then
  echo
  echo "CheckFileInfo with 1,000,000 files in the database (wrk, 2 threads, 8 connections)"
  run_wrk "WOPIKit CheckFileInfo, 50,000 files" "$CFI" 8; SMALL_DB_RPS=$RPS
  for part in $(seq 1 19); do add_rows "Million part $part" 50000 >/dev/null; done
  FILES=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM files').fetchone()[0])" "$WORK/data/wopi.sqlite")
  run_wrk "WOPIKit CheckFileInfo, $FILES files" "$CFI" 8
  R=$(ratio "$RPS" "$SMALL_DB_RPS")
  echo "  → $R% of the throughput with 50,000 files"
  record cfi_million_files "$FILES"; record cfi_million_rps "$RPS"; record cfi_million_p99_ms "$P99_MS"; record cfi_million_percent_of_small "$R"
  echo "  query plans of the per-request lookups:"
  python3 - "$WORK/data/wopi.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
# The one statement every WOPI file request starts with (SQLiteStore.fileAccess), and a listing page.
file_access = """WITH RECURSIVE chain(id) AS (SELECT container_id FROM files WHERE id = ?1
    UNION SELECT c.parent_id FROM containers c JOIN chain ON c.id = chain.id WHERE c.parent_id IS NOT NULL)
  SELECT u.id, f.*, c.name,
    CASE WHEN f.owner_id = u.id THEN NULL ELSE (SELECT max(s.role) FROM shares s JOIN chain ON s.container_id = chain.id WHERE s.user_id = u.id) END,
    CASE WHEN f.owner_id = u.id THEN NULL ELSE (SELECT max(s.role) FROM shares s WHERE s.file_id = f.id AND s.user_id = u.id) END
  FROM users u LEFT JOIN files f ON f.id = ?1 LEFT JOIN containers c ON c.id = f.container_id WHERE u.id = ?2"""
for label, sql in [("fileAccess (user, file, folder, shares)", file_access),
                   ("EnumerateChildren page", "SELECT * FROM files WHERE container_id = ? AND name > ? COLLATE NOCASE ORDER BY name COLLATE NOCASE LIMIT 1000")]:
    plan = "; ".join(row[3] for row in db.execute("EXPLAIN QUERY PLAN " + sql, ("x",) * (2 if "?2" in sql else sql.count("?"))))
    print(f"    {label:42} {plan}")
PY
fi

# The chart: each path as a percentage of what this machine allows it, with its target beside it.
python3 - "$WORK/results.json" "$WORK/chart.dat" "$SIZE_MIB" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
mib = sys.argv[3]
rows = [("CheckFileInfo\\n8 conn", r["cfi_8_percent_of_floor"], 50, f'{r["cfi_8_rps"]:,.0f} of {r["floor_8_rps"]:,.0f} req/s'),
        ("CheckFileInfo\\n64 conn", r["cfi_64_percent_of_floor"], 50, f'{r["cfi_64_rps"]:,.0f} of {r["floor_64_rps"]:,.0f} req/s'),
        (f"GetFile\\n{mib} MiB", r["get_percent_of_nginx"], 90, f'{r["get_mbps"]:,.0f} of {r["nginx_get_mbps"]:,.0f} MB/s'),
        (f"PutFile\\n{mib} MiB", r["put_percent_of_nginx"], 70, f'{r["put_mbps"]:,.0f} of {r["nginx_put_mbps"]:,.0f} MB/s'),
        ("Lock+Unlock\\n8 conn", round(100 * r["lock_unlock_pairs_per_s"] / 5000, 1), 100, f'{r["lock_unlock_pairs_per_s"]:,} pairs/s of 5,000'),
        ("Enumerate\\n50,000 files", round(100 * 300 / max(r["enumerate_50k_ms"], 1), 1), 100, f'{r["enumerate_50k_ms"]} ms (300 ms target)')]
if "cfi_million_percent_of_small" in r:
    rows.append(("CheckFileInfo\\n1M files", r["cfi_million_percent_of_small"], 100, f'{r["cfi_million_rps"]:,.0f} req/s'))
with open(sys.argv[2], "w") as out:
    for label, value, target, text in rows:
        out.write(f'"{label}" {value} {target} "{text}"\n')
PY
gnuplot <<PLOT
set terminal pngcairo size 1100,560 font "sans,10"
set output "$CHART"
set title "WOPIKit hot paths as % of what this machine allows ($(date -u +%F), $MACHINE)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [0:*]
set offsets 0, 0, 12, 0
set bmargin 5
set ylabel "% of the limit measured in the same run"
set key outside top center horizontal
set grid ytics
plot "$WORK/chart.dat" using 2:xtic(1) title "WOPIKit" linecolor rgb "#2b6cb0", \
     "" using 3 title "target" linecolor rgb "#cbd5e0", \
     "" using (\$0 - 0.15):(\$2 + 4):4 with labels font "sans,8" notitle
PLOT
record chart "\"$CHART\""
echo
echo "chart: $CHART"
if [ -n "$JSON_OUTPUT" ]; then python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1])), indent=2))" "$WORK/results.json" >&3; fi
