#!/usr/bin/env bash
# Installs a wopikit .deb into a clean Debian 12 root (debootstrap minbase: no Swift, no compiler) and
# checks it as an operator would: the install (the wopikit user, its data folder), `wopi --version`, `wopi link`,
# `wopi serve --config` answering /health/ready, and the systemd unit under `systemd-analyze verify`.
#
#   bash Packaging/test-deb.sh .build/deb/wopikit_VERSION_ARCH.deb
#   bash Packaging/test-deb.sh --prepare      (only make the clean root, e.g. while something else builds)
# Needs root, debootstrap and curl. The clean root is cached in .build/debootstrap-bookworm.
set -euo pipefail
cd "$(dirname "$0")/.."
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=$PWD/.build/debootstrap-bookworm

mkdir -p "$(dirname "$cache")"
if [[ ! -x "$cache/bin/sh" ]]; then
  rm -rf "$cache.partial"
  debootstrap --variant=minbase bookworm "$cache.partial" "$mirror" >/dev/null
  mv "$cache.partial" "$cache"
fi
[[ "${1:-}" != --prepare ]] || exit 0

deb=$(realpath "${1:?usage: test-deb.sh PACKAGE.deb | --prepare}")
version=$(dpkg-deb --field "$deb" Version)

root=$(mktemp -d /tmp/wopikit-root.XXXXXX)
server_pid=
cleanup() {
  if [[ -n "$server_pid" ]]; then kill -TERM -- "-$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  umount "$root/proc" 2>/dev/null || true
  rm -rf "$root"
}
trap cleanup EXIT
cp -a "$cache/." "$root/"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"   # Foundation finds the executable, and so its resources, through /proc/self/exe
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
fail() { echo "test-deb: FAIL: $*" >&2; exit 1; }

if in_root sh -c 'command -v swift || command -v swiftc || ls /usr/lib/swift' >/dev/null 2>&1; then
  fail "the clean root has a Swift toolchain"
fi

dpkg-deb --field "$deb" Depends | grep -q 'libsqlite3-0 (>= 3.35.0)' || fail "the package does not ask for SQLite 3.35 (RETURNING)"
cp "$deb" "$root/tmp/wopikit.deb"
in_root apt-get update -qq >/dev/null
in_root DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /tmp/wopikit.deb > "$root/tmp/apt.log" 2>&1 \
  || { cat "$root/tmp/apt.log" >&2; fail "apt-get install ./$(basename "$deb")"; }
echo "test-deb: installed $(basename "$deb")"

[[ "$(in_root wopi --version)" == "$version" ]] || fail "wopi --version is not $version"
in_root getent passwd wopikit >/dev/null || fail "postinst did not create the wopikit user"
[[ "$(in_root stat -c '%U:%G %a' /etc/wopikit/serve.json)" == "root:wopikit 640" ]] || fail "serve.json's owner or mode"
[[ "$(in_root stat -c '%U:%G %a' /var/lib/wopikit)" == "wopikit:wopikit 750" ]] || fail "postinst did not create /var/lib/wopikit as wopikit:wopikit 0750"

expected='ms-word:ofe|u|https://contoso/Q4/budget.docx|p|clouddrive|c|folderviewQ4'
link=$(in_root wopi link --app word --mode edit --url https://contoso/Q4/budget.docx --passback clouddrive --context folderviewQ4)
[[ "$link" == "$expected" ]] || fail "wopi link printed '$link'"
echo "test-deb: wopi $version and wopi link work"

# The service as systemd would start it: the wopikit user, /var/lib/wopikit, the packaged configuration.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
setsid chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/var/lib/wopikit LANG=C.UTF-8 \
  /usr/sbin/runuser -u wopikit -- sh -c "cd /var/lib/wopikit && exec wopi serve --config /etc/wopikit/serve.json --port $port" \
  > "$root/tmp/serve.log" 2>&1 &
server_pid=$!
ready=
for _ in $(seq 1 150); do
  if curl -fsS "http://127.0.0.1:$port/health/ready" >/dev/null 2>&1; then ready=yes; break; fi
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.2
done
[[ -n "$ready" ]] || { cat "$root/tmp/serve.log" >&2; fail "wopi serve did not answer /health/ready"; }
[[ -n "$(ls -A "$root/var/lib/wopikit")" ]] || fail "serve wrote nothing to /var/lib/wopikit"
[[ "$(stat -c %a "$root/var/lib/wopikit/first-start-secrets.txt")" == 600 ]] || fail "the first start's secrets are not in a 0600 file"
echo "test-deb: wopi serve --config /etc/wopikit/serve.json answers /health/ready as wopikit"

# systemd-analyze verify needs systemd's own units beside ours; the host's are enough for that.
units=$(mktemp -d)
mkdir -p "$units/lib/systemd" "$units/usr"
cp -R /lib/systemd/system "$units/lib/systemd/"
dpkg-deb -x "$deb" "$units"
systemd-analyze verify --man=no --root="$units" wopikit.service || { rm -rf "$units"; fail "systemd-analyze verify wopikit.service"; }
rm -rf "$units"
echo "test-deb: systemd-analyze verify wopikit.service: clean"
echo "test-deb: package $(basename "$deb"), $(du -h "$deb" | cut -f1), Depends: $(dpkg-deb --field "$deb" Depends)"
echo "test-deb: every check passed"
