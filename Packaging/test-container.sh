#!/usr/bin/env bash
# Builds WOPIKit's image from a .deb with podman and checks it as an operator would: ready (and healthy) with no
# secret in its log, running as a non-root user, its files private, its data kept in a volume across a new
# container, and a stop within 2 s; then two hosts and PostgreSQL, each in a container, share one document, and
# a host stops within 2 s once its database is gone.
#
#   bash Packaging/test-container.sh .build/deb/wopikit_VERSION_ARCH.deb
#
# Needs root, podman and runc (Debian's packages) and the clean Debian 12 root test-deb.sh caches in
# .build/debootstrap-bookworm, imported as the base image: no registry is used. The images are kept in
# .build/podman (the PostgreSQL image is built once), apart from the machine's own. Containers reach each
# other on a podman network of their own; the hosts publish their ports on 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."
deb=$(realpath "${1:?usage: test-container.sh PACKAGE.deb}")
cache=$PWD/.build/debootstrap-bookworm
state=$PWD/.build/podman
[[ -x "$cache/bin/sh" ]] || bash Packaging/test-deb.sh --prepare
started=$(date +%s.%N)
fail() { echo "test-container: FAIL: $*" >&2; exit 1; }
elapsed() { awk -v from="$1" -v to="$(date +%s.%N)" 'BEGIN { printf "%.2f", to - from }'; }
say() { echo "test-container: $1 ($(elapsed "$started") s)"; }

# This test's podman settings only, not the machine's: crun does not run here, so runc; podman's default
# ulimits (nofile 1048576, and nproc for a non-root user) are more than runc may set here, so lower ones; logs
# and events in files (no journald); images in .build/podman, state in /run/wopikit-podman (podman keeps both
# paths in its database, so they stay the same from run to run).
run_dir=$(mktemp -d /tmp/wopikit-podman.XXXXXX)
mkdir -p "$state/storage"
export CONTAINERS_CONF=$run_dir/containers.conf CONTAINERS_STORAGE_CONF=$run_dir/storage.conf
nofile=$(ulimit -Hn)
[[ "$nofile" == unlimited || "$nofile" -gt 65536 ]] && nofile=65536
cat > "$CONTAINERS_CONF" <<CONF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=4096:4096"]
log_driver = "k8s-file"
[engine]
runtime = "runc"
events_logger = "file"
tmp_dir = "/run/wopikit-podman/tmp"
CONF
cat > "$CONTAINERS_STORAGE_CONF" <<CONF
[storage]
driver = "overlay"
graphroot = "$state/storage"
runroot = "/run/wopikit-podman/run"
CONF

# Podman logs each attempt to reach systemd for a health check's timer, and netavark that it has no syslog:
# noise here, left out; everything else podman says still shows.
podman() {
  command podman "$@" 2> >(grep -v -e 'unable to get systemd connection' -e 'failed to connect to syslog' >&2)
}

id=$$
names=(wopikit-test-$id wopikit-test-$id-again wopikit-test-$id-pg wopikit-test-$id-a wopikit-test-$id-b)
cleanup() {
  for name in "${names[@]}"; do podman rm -f -t 0 "$name" >/dev/null 2>&1 || true; done
  podman volume rm -f "wopikit-test-$id" "wopikit-test-$id-blobs" >/dev/null 2>&1 || true
  podman network rm -f "wopikit-test-$id" >/dev/null 2>&1 || true
  podman rmi -f "localhost/wopikit-test:$id" >/dev/null 2>&1 || true
  rm -rf "$run_dir"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# Waits up to 60 s for URL to answer 200; the container must keep running meanwhile.
wait_ready() {
  local container=$1 url=$2
  for _ in $(seq 1 300); do
    curl -fsS -o /dev/null "$url" 2>/dev/null && return 0
    [[ "$(podman inspect -f '{{.State.Running}}' "$container")" == true ]] || { podman logs "$container" >&2; fail "$container exited"; }
    sleep 0.2
  done
  podman logs "$container" >&2
  fail "$container did not answer $url within 60 s"
}
# Stops a container as an operator does (SIGTERM, SIGKILL after 10 s); fails unless it ended by itself within 2 s.
stop_within_2s() {
  local container=$1 what=$2 begin took code
  begin=$(date +%s.%N)
  podman stop -t 10 "$container" >/dev/null
  took=$(elapsed "$begin")
  code=$(podman inspect -f '{{.State.ExitCode}}' "$container")
  [[ "$code" == 0 ]] || { podman logs "$container" 2>&1 | tail -20 >&2; fail "$what: exit code $code after SIGTERM (137: killed)"; }
  awk -v took="$took" 'BEGIN { exit !(took < 2) }' || { podman logs -t "$container" 2>&1 | tail -20 >&2; fail "$what: podman stop took $took s"; }
  say "$what: stopped in $took s, exit code 0"
}

# --- Images: the base from the debootstrap root, WOPIKit's from the .deb, PostgreSQL's from Debian's package.
if ! podman image exists localhost/wopikit-base; then
  tar -C "$cache" -c . | podman import --quiet - localhost/wopikit-base >/dev/null
fi
context=$run_dir/context
mkdir -p "$context"
cp "$deb" "$context/"
podman build --quiet --format docker -f Packaging/Containerfile --build-arg BASE=localhost/wopikit-base \
  --build-arg DEB="$(basename "$deb")" -t "localhost/wopikit-test:$id" "$context" >/dev/null
image=localhost/wopikit-test:$id
say "built $image from $(basename "$deb"): $(podman image inspect -f '{{.Size}}' "$image" | numfmt --to=si)B"
if ! podman image exists localhost/wopikit-test-postgres; then
  mkdir -p "$run_dir/postgres"
  # Trust on the test's own network only: the database is reachable from its containers and nowhere else.
  cat > "$run_dir/postgres/Containerfile" <<'CONTAINERFILE'
FROM localhost/wopikit-base
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-15 >/dev/null \
    && rm -rf /var/lib/apt/lists/*
USER postgres
RUN /usr/lib/postgresql/15/bin/initdb -D /var/lib/postgresql/data -U wopikit --auth=trust >/dev/null \
    && echo "listen_addresses = '*'" >> /var/lib/postgresql/data/postgresql.conf \
    && echo "host all all samenet trust" >> /var/lib/postgresql/data/pg_hba.conf
CMD ["/usr/lib/postgresql/15/bin/postgres", "-D", "/var/lib/postgresql/data", "-k", "/tmp"]
CONTAINERFILE
  podman build --quiet -t localhost/wopikit-test-postgres "$run_dir/postgres" >/dev/null
fi

# --- One host on SQLite, data in a named volume.
volume=wopikit-test-$id
port=$(free_port)
podman volume create "$volume" >/dev/null
# Podman schedules a HEALTHCHECK with systemd timers; there is no systemd here, so the test runs the check itself.
run_host() {  # name, then extra podman run arguments
  local name=$1; shift
  podman run -d --name "$name" --health-interval=disable -p "127.0.0.1:$port:8080" -v "$volume:/var/lib/wopikit" \
    -e WOPI_PUBLIC_URL="http://127.0.0.1:$port" "$@" "$image" >/dev/null
}
host=wopikit-test-$id
run_host "$host"
wait_ready "$host" "http://127.0.0.1:$port/health/ready"
podman healthcheck run "$host" >/dev/null || fail "the image's HEALTHCHECK does not pass on a ready host"
say "ready on 127.0.0.1:$port, HEALTHCHECK healthy"

# Not root: the server (PID 1) runs as wopikit, and so does a command run in the container.
[[ "$(podman exec "$host" cat /proc/1/status | awk '/^Uid:/ { print $2 "/" $3 }')" == 10001/10001 ]] || fail "the server does not run as UID 10001"
[[ "$(podman exec "$host" id -un)" == wopikit ]] || fail "commands in the container do not run as wopikit"
say "wopi serve runs as wopikit (UID 10001), not root"

# No secret in the container's log: the first start's secrets are in the data folder, which the log names.
secrets=$(podman exec "$host" cat /var/lib/wopikit/first-start-secrets.txt)
password=$(sed -n 's/^demo password: *//p' <<<"$secrets")
client_secret=$(sed -n 's/^client secret: *//p' <<<"$secrets")
[[ -n "$password" && -n "$client_secret" ]] || fail "first-start-secrets.txt lacks the password or the client secret"
log=$(podman logs "$host" 2>&1)
grep -qF -- "$password" <<<"$log" && fail "the demo password is in the container's log"
grep -qF -- "$client_secret" <<<"$log" && fail "the Office client secret is in the container's log"
grep -qF /var/lib/wopikit/first-start-secrets.txt <<<"$log" || fail "the log does not say where the secrets are"
grep -q 'http://0\.0\.0\.0' <<<"$log" && fail "the banner prints links with the bind address"
grep -qF "WOPISrc: http://127.0.0.1:$port/wopi/files/" <<<"$log" || fail "the banner's links do not use WOPI_PUBLIC_URL"
say "no secret in the container's log; it names /var/lib/wopikit/first-start-secrets.txt; links use WOPI_PUBLIC_URL"

# File modes, with no umask but the image's (podman's default, 0022).
modes=$(podman exec "$host" sh -c 'cd /var/lib/wopikit && stat -c "%a %U %n" . wopi.sqlite wopi.sqlite-wal first-start-secrets.txt blobs blobs/.staging && find blobs -mindepth 1 -not -path "blobs/.staging" -printf "%m %u %p\n"')
while read -r mode owner name; do
  [[ "$owner" == wopikit ]] || fail "$name belongs to $owner"
  case "$name" in
    .) [[ "$mode" == 750 ]] || fail "/var/lib/wopikit is $mode, not 750" ;;
    *) (( (8#$mode & 8#077) == 0 )) || fail "/var/lib/wopikit/$name is $mode: group or others may open it" ;;
  esac
done <<<"$modes"
[[ $(grep -c '^600 ' <<<"$modes") -ge 6 && $(grep -c '^700 ' <<<"$modes") -ge 3 ]] || { echo "$modes" >&2; fail "expected 0600 files and 0700 folders"; }
say "files 0600, folders 0700, the volume's root 0750, all owned by wopikit"

# Volume persistence: a user added now, and a sample's body, are there for a new container on the same volume.
# (Pipes end in a reader that reads everything: with pipefail, a reader that stops early fails the writer.)
podman exec "$host" wopi users add alice --password 'container-persistence-1' --data /var/lib/wopikit >/dev/null
file_id=$(grep -oE '\.docx +id [0-9a-f]{32}' <<<"$log" | awk 'NR == 1 { print $3 }')
[[ -n "$file_id" ]] || fail "the banner names no sample .docx"
stop_within_2s "$host" "SQLite host"
podman rm "$host" >/dev/null
again=wopikit-test-$id-again
run_host "$again"
wait_ready "$again" "http://127.0.0.1:$port/health/ready"
again_log=$(podman logs "$again" 2>&1)
grep -q "Created the demo user" <<<"$again_log" && fail "a new container on the volume provisioned again"
[[ "$(podman exec "$again" wopi users list --data /var/lib/wopikit | grep -oE '"(alice|demo)"' | sort -u | wc -l)" == 2 ]] \
  || fail "users are not kept across containers: $(podman exec "$again" wopi users list --data /var/lib/wopikit)"
token=$(podman exec "$again" wopi token --user demo --file "$file_id" --data /var/lib/wopikit | python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')
curl -fsS -o "$run_dir/sample.docx" "http://127.0.0.1:$port/wopi/files/$file_id/contents?access_token=$token" \
  || fail "the new container does not serve the sample's body"
[[ "$(head -c 2 "$run_dir/sample.docx")" == PK ]] || fail "the sample's body served by the new container is not a .docx"
say "a new container on the volume keeps users and bodies, and provisions nothing"
stop_within_2s "$again" "SQLite host, second container"

# --- Two hosts and PostgreSQL, each in a container, on a network of their own; bodies in a shared volume.
network=wopikit-test-$id
podman network create "$network" >/dev/null
pg=wopikit-test-$id-pg
# SIGINT is PostgreSQL's fast shutdown; SIGTERM would wait for the hosts' connections to end.
podman run -d --name "$pg" --network "$network" --stop-signal SIGINT localhost/wopikit-test-postgres >/dev/null
for _ in $(seq 1 150); do
  podman exec "$pg" /usr/lib/postgresql/15/bin/pg_isready -q -h 127.0.0.1 -U wopikit 2>/dev/null && break
  sleep 0.2
done
podman exec "$pg" /usr/lib/postgresql/15/bin/pg_isready -q -h 127.0.0.1 -U wopikit || { podman logs "$pg" >&2; fail "PostgreSQL did not start"; }
podman volume create "wopikit-test-$id-blobs" >/dev/null
# The hosts find the database by its name through /etc/hosts, not podman's DNS server: aardvark-dns can leave a
# question about a container's name unanswered for seconds where the machine's own resolver is unreachable.
pg_address=$(podman inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$pg")
[[ -n "$pg_address" ]] || fail "PostgreSQL's container has no address on $network"
ports=()
for name in a b; do
  ports+=("$(free_port)")
  podman run -d --name "wopikit-test-$id-$name" --health-interval=disable --network "$network" --add-host "$pg:$pg_address" \
    -p "127.0.0.1:${ports[-1]}:8080" \
    -v "wopikit-test-$id-blobs:/srv/wopi-blobs:U" -e WOPI_BLOBS=/srv/wopi-blobs \
    -e WOPI_DATABASE_URL="postgres://wopikit@$pg:5432/postgres?sslmode=disable" \
    -e WOPI_PUBLIC_URL="http://127.0.0.1:${ports[0]}" "$image" >/dev/null
  wait_ready "wopikit-test-$id-$name" "http://127.0.0.1:${ports[-1]}/health/ready"
done
a=wopikit-test-$id-a b=wopikit-test-$id-b
say "two hosts ready on one PostgreSQL in containers"

# One document: a token minted on host a works on b, a lock taken on a holds on b, a save on a is what b serves.
sample=$( (podman logs "$a"; podman logs "$b") 2>&1 | grep -oE '\.docx +id [0-9a-f]{32}' | awk 'NR == 1 { print $3 }')
[[ -n "$sample" ]] || fail "neither host's banner names a sample .docx"
token=$(podman exec "$a" wopi token --user demo --file "$sample") || fail "wopi token in host a's container"
token=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])' <<<"$token")
on() { echo "http://127.0.0.1:$1/wopi/files/$sample${2:-}?access_token=$token"; }
status() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
[[ "$(status -X POST -H 'X-WOPI-Override: LOCK' -H 'X-WOPI-Lock: lock-a' "$(on "${ports[0]}")")" == 200 ]] || fail "LOCK on host a"
[[ "$(status -X POST -H 'X-WOPI-Override: LOCK' -H 'X-WOPI-Lock: lock-b' "$(on "${ports[1]}")")" == 409 ]] || fail "host b did not see host a's lock"
body="saved through host a in container $a"
[[ "$(status -X POST -H 'X-WOPI-Override: PUT' -H 'X-WOPI-Lock: lock-a' --data-binary "$body" "$(on "${ports[0]}" /contents)")" == 200 ]] \
  || fail "PutFile on host a"
[[ "$(curl -fsS "$(on "${ports[1]}" /contents)")" == "$body" ]] || fail "host b does not serve what host a saved"
say "hosts a and b share one document: token, lock and content"

# The database goes away (its container stopped, its address gone): the hosts still stop within 2 s.
podman stop -t 10 "$pg" >/dev/null
[[ "$(status "http://127.0.0.1:${ports[1]}/health/ready")" == 503 ]] || fail "host b is still ready without its database"
podman rm "$pg" >/dev/null
stop_within_2s "$a" "PostgreSQL host a, database gone"
stop_within_2s "$b" "PostgreSQL host b, database gone"
a_log=$(podman logs "$a" 2>&1)
grep -qF -- "$token" <<<"$a_log" && fail "an access token is in host a's log"
say "every check passed"
