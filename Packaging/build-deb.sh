#!/usr/bin/env bash
# Builds wopikit_<version>_<arch>.deb: `wopi` from a release build with the Swift runtime linked in,
# so the server needs no Swift toolchain; its shared-library dependencies are derived by dpkg-shlibdeps.
#
#   bash Packaging/build-deb.sh [OUTPUT_DIR]      (default .build/deb; prints the package's path)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/deb}
mkdir -p "$out"

# The static Foundation links the system libcurl and libxml2 (URLSession, XMLParser): building needs their
# -dev packages (libcurl4-openssl-dev, libxml2-dev); the package then depends on their runtime libraries.
build=(-c release --static-swift-stdlib)
swift build "${build[@]}" --product wopi >&2
bin=$(swift build "${build[@]}" --show-bin-path)
version=$("$bin/wopi" --version)
arch=$(dpkg --print-architecture)
name="wopikit_${version}_${arch}"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/$name"

# The binary lives beside its resource bundles, where Bundle.module looks (the directory of the resolved
# executable); /usr/bin/wopi links to it.
install -D -m 0755 "$bin/wopi" "$root/usr/lib/wopikit/wopi"
strip --strip-unneeded "$root/usr/lib/wopikit/wopi"
for bundle in "$bin"/*.resources; do
  [[ -e "$bundle" ]] || continue
  cp -R "$bundle" "$root/usr/lib/wopikit/"
done
mkdir -p "$root/usr/bin"
ln -s ../lib/wopikit/wopi "$root/usr/bin/wopi"
install -D -m 0644 Packaging/wopikit.service "$root/lib/systemd/system/wopikit.service"
install -D -m 0644 Packaging/serve.json "$root/etc/wopikit/serve.json"
install -D -m 0755 Packaging/postinst "$root/DEBIAN/postinst"
echo /etc/wopikit/serve.json > "$root/DEBIAN/conffiles"

# dpkg-shlibdeps reads a debian/control from the working directory; a minimal one is enough.
mkdir -p "$stage/debian"
printf 'Source: wopikit\n\nPackage: wopikit\nArchitecture: any\n' > "$stage/debian/control"
depends=$(cd "$stage" && dpkg-shlibdeps -O -e"$root/usr/lib/wopikit/wopi" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
# The store's statements use RETURNING, which SQLite has since 3.35; the symbols alone ask for less.
depends=$(echo "$depends" | sed 's/libsqlite3-0 ([^)]*)/libsqlite3-0 (>= 3.35.0)/')
# useradd and groupadd (postinst) come from passwd, which every Debian system has.
depends="$depends, passwd"

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: wopikit
Version: $version
Architecture: $arch
Maintainer: WOPIKit <wopikit@localhost>
Installed-Size: $size
Depends: $depends
Section: net
Priority: optional
Homepage: https://github.com/wopikit/wopikit
Description: WOPI host and tools for opening cloud documents in Office for iOS
 wopi serves documents to Word, Excel and PowerPoint for iOS over WOPI (SQLite and files
 in /var/lib/wopikit by default, or PostgreSQL and a shared blob store), and checks,
 simulates and validates WOPI hosts. The service runs as the wopikit user with
 /etc/wopikit/serve.json.
CONTROL

dpkg-deb --root-owner-group --build "$root" "$out/$name.deb" >&2
echo "$out/$name.deb"
