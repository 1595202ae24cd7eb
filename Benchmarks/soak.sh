#!/usr/bin/env bash
# Soak test of the WOPI host: several minutes of mixed operations from many connections
# against a real `wopi serve`, sampling the server's RSS every second.
#
# Prints the requests done, their statuses, the count of 5xx answers (must be 0) and the server's
# RSS at start, after warm-up and at the end (memory must stay flat after warm-up).
# Exits 1 when any 5xx was seen, the server died, or requests failed at the transport level.
#
# Loopback only, bounded in time, stops by itself, and kills the server it started by its PID.
#
# Environment:
#   WOPI_BIN      the wopi binary (default .build/debug/wopi)
#   DURATION      seconds of load (default 180)
#   WARMUP        seconds of load before the "after warm-up" RSS sample (default 30, at most DURATION/2)
#   CONNECTIONS   concurrent connections (default 32)
#   FILES         documents shared by the connections (default 8: several clients per file, so locks conflict)
#   BODY_KIB      largest PutFile body in KiB (default 256)
set -euo pipefail

WOPI_BIN=${WOPI_BIN:-.build/debug/wopi}
DURATION=${DURATION:-180}
WARMUP=${WARMUP:-30}
CONNECTIONS=${CONNECTIONS:-32}
FILES=${FILES:-8}
BODY_KIB=${BODY_KIB:-256}

[ -x "$WOPI_BIN" ] || { echo "soak: no executable wopi at '$WOPI_BIN' (build it, or set WOPI_BIN)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "soak: python3 is required" >&2; exit 2; }
for value in "$DURATION" "$WARMUP" "$CONNECTIONS" "$FILES" "$BODY_KIB"; do
    [[ "$value" =~ ^[1-9][0-9]*$ ]] || { echo "soak: DURATION, WARMUP, CONNECTIONS, FILES and BODY_KIB must be positive integers" >&2; exit 2; }
done
if [ "$WARMUP" -gt $((DURATION / 2)) ]; then WARMUP=$((DURATION / 2)); fi

work=$(mktemp -d "${TMPDIR:-/tmp}/wopi-soak.XXXXXX")
data="$work/data"
server_pid=""

cleanup() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        for _ in $(seq 1 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')

# Seed: one user, FILES documents, one token per document.
"$WOPI_BIN" users add soak --password soak-password-1 --data "$data" >/dev/null
: > "$work/targets"
for i in $(seq 1 "$FILES"); do
    head -c $((64 * 1024)) /dev/urandom > "$work/seed-$i.docx"
    id=$("$WOPI_BIN" files add "$work/seed-$i.docx" --owner soak --name "Soak $i.docx" --data "$data" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
    token=$("$WOPI_BIN" token --user soak --file "$id" --data "$data" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')
    echo "$id $token" >> "$work/targets"
done

"$WOPI_BIN" serve --host 127.0.0.1 --port "$port" --data "$data" --log-level warning --max-file-size 64M \
    > "$work/serve.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 300); do
    if python3 -c "import socket, sys; socket.create_connection(('127.0.0.1', $port), 0.2).close()" 2>/dev/null; then break; fi
    kill -0 "$server_pid" 2>/dev/null || { echo "soak: wopi serve exited:" >&2; cat "$work/serve.log" >&2; exit 1; }
    sleep 0.1
done

echo "soak: wopi serve pid $server_pid on 127.0.0.1:$port; $CONNECTIONS connections, $FILES files, ${DURATION}s (warm-up ${WARMUP}s)"

set +e
python3 - "$port" "$server_pid" "$DURATION" "$WARMUP" "$CONNECTIONS" "$BODY_KIB" "$work/targets" <<'PY'
import collections, http.client, os, random, sys, threading, time

port, pid, duration, warmup, connections, body_kib = (int(x) for x in sys.argv[1:7])
targets = [line.split() for line in open(sys.argv[7]) if line.strip()]

def rss_kib():
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None

statuses = collections.Counter()
per_operation = collections.Counter()
failures = collections.Counter()
lock = threading.Lock()
stop = threading.Event()
samples = []  # (seconds since start, RSS KiB)

def sampler(start):
    while not stop.is_set():
        value = rss_kib()
        if value is None:
            failures["server gone"] += 1
            stop.set()
            return
        samples.append((time.monotonic() - start, value))
        stop.wait(1.0)

def worker(index, deadline):
    rng = random.Random(index)
    file_id, token = targets[index % len(targets)]
    my_lock = f"soak-lock-{index}"
    connection = None
    local = collections.Counter()
    local_ops = collections.Counter()
    local_failures = collections.Counter()

    def request(name, method, path, headers=None, body=None):
        # No retries: a dropped or truncated response is a failure to report, not to hide.
        nonlocal connection
        try:
            if connection is None:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection.request(method, f"{path}?access_token={token}", body=body, headers=headers or {})
            response = connection.getresponse()
            response.read()
            local[response.status] += 1
            local_ops[(name, response.status)] += 1
            if response.will_close:
                connection.close()
                connection = None
            return response
        except (OSError, http.client.HTTPException) as error:
            if connection is not None:
                connection.close()
            connection = None
            local_failures[f"{name}: {type(error).__name__}"] += 1
            return None

    base = f"/wopi/files/{file_id}"
    while time.monotonic() < deadline and not stop.is_set():
        request("CheckFileInfo", "GET", base)
        request("GetLock", "POST", base, {"X-WOPI-Override": "GET_LOCK"})
        locked = request("Lock", "POST", base, {"X-WOPI-Override": "LOCK", "X-WOPI-Lock": my_lock})
        if locked is not None and locked.status == 200:
            request("RefreshLock", "POST", base, {"X-WOPI-Override": "REFRESH_LOCK", "X-WOPI-Lock": my_lock})
            size = rng.randint(1, body_kib * 1024)
            request("PutFile", "POST", base + "/contents", {"X-WOPI-Override": "PUT", "X-WOPI-Lock": my_lock}, os.urandom(size))
            request("GetFile", "GET", base + "/contents")
            request("Unlock", "POST", base, {"X-WOPI-Override": "UNLOCK", "X-WOPI-Lock": my_lock})
        else:
            # Someone else holds it: a write with our lock must be refused (409), a read still works.
            request("PutFile (not holder)", "POST", base + "/contents", {"X-WOPI-Override": "PUT", "X-WOPI-Lock": my_lock}, b"not mine")
            request("GetFile", "GET", base + "/contents")
    if connection is not None:
        connection.close()
    with lock:
        statuses.update(local)
        per_operation.update(local_ops)
        failures.update(local_failures)

start = time.monotonic()
rss_start = rss_kib()
threading.Thread(target=sampler, args=(start,), daemon=True).start()
deadline = start + duration
threads = [threading.Thread(target=worker, args=(i, deadline)) for i in range(connections)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join(duration + 60)
elapsed = time.monotonic() - start
time.sleep(1.5)  # one more sample after the load
stop.set()

def at(seconds):
    later = [value for t, value in samples if t >= seconds]
    return later[0] if later else (samples[-1][1] if samples else None)

rss_warm = at(warmup)
rss_end = samples[-1][1] if samples else None
rss_peak = max((value for _, value in samples), default=None)
after_warm = [value for t, value in samples if t >= warmup]
mib = lambda kib: "n/a" if kib is None else f"{kib / 1024:.1f} MiB"
total = sum(statuses.values())
errors_5xx = sum(count for status, count in statuses.items() if status >= 500)
unexpected = {f"{name} {status}": count for (name, status), count in per_operation.items()
              if not (status == 200 or (status == 409 and name in ("Lock", "PutFile (not holder)")))}

print(f"requests done:        {total} in {elapsed:.0f}s ({total / max(elapsed, 1):.0f}/s)")
print(f"statuses:             {dict(sorted(statuses.items()))}")
print(f"5xx responses:        {errors_5xx}  (must be 0)")
print(f"unexpected answers:   {unexpected if unexpected else 'none'}")
print(f"transport failures:   {dict(failures) if failures else 'none'}")
print(f"server RSS at start:  {mib(rss_start)}")
print(f"server RSS warm-up:   {mib(rss_warm)}  (after {warmup}s)")
print(f"server RSS at end:    {mib(rss_end)}")
print(f"server RSS peak:      {mib(rss_peak)}")
if rss_warm and rss_end:
    growth = rss_end - rss_warm
    print(f"growth after warm-up: {growth / 1024:+.1f} MiB ({100 * growth / rss_warm:+.1f}%), "
          f"range after warm-up {mib(min(after_warm))} .. {mib(max(after_warm))}")
sys.exit(1 if errors_5xx or failures else 0)
PY
status=$?
set -e
if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "soak: the server died during the run; its log:" >&2
    tail -50 "$work/serve.log" >&2
    exit 1
fi
if grep -qiE 'fatal|crash|error' "$work/serve.log"; then
    echo "soak: the server logged errors:" >&2
    grep -iE 'fatal|crash|error' "$work/serve.log" | sort | uniq -c | sort -rn | head -20 >&2
fi
exit "$status"
