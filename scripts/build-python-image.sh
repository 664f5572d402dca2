#!/usr/bin/env bash
# Builds the local image mcp-client-conformance/python:local: Debian's Python 3 and the libraries it links, unpacked
# from Debian packages into a root filesystem and imported with `docker import`. Nothing comes from a container
# registry (there is none here); only Debian's package archive is used, through apt-get.
#
#   bash scripts/build-python-image.sh           # skips when the image exists
#   bash scripts/build-python-image.sh --force   # rebuilds it
#
# Needs root (chroot, to byte-compile the standard library with the image's own interpreter) and an engine that
# answers (bash scripts/docker-engine.sh). The image holds python3 with its standard library, minus the modules
# whose libraries are left out to keep it small (readline, curses, dbm, nis, sqlite3), and coreutils' `sleep` alone,
# which the container adapter (clients/container/adapter.ts) runs to keep a container alive. The layer is
# reproducible: the same package versions give the same tar, byte for byte (sorted, owned by root, mtime 0,
# hash-checked .pyc files). /etc/mcp-client-conformance-image lists the package versions it was built from.
set -euo pipefail

IMAGE=${PYTHON_IMAGE:-mcp-client-conformance/python:local}
# Debian 12 (bookworm), as on these machines: another release names another python3.X.
PYTHON=python3.11
# The interpreter, its standard library and the shared libraries they load (python3-minimal: the python3 link).
PACKAGES=(
  python3-minimal "$PYTHON-minimal" "lib$PYTHON-minimal" "lib$PYTHON-stdlib"
  libc6 libgcc-s1 zlib1g libexpat1 libssl3 libffi8 libbz2-1.0 liblzma5 libcrypt1 libuuid1
  coreutils
)
# What the line-protocol drivers import (clients/drivers/python/driver.py), checked in a container at the end.
DRIVER_IMPORTS='import http.client, itertools, json, os, socket, sys, threading, urllib.parse, ssl'

say() { echo "build-python-image: $*" >&2; }
fail() {
  say "$*"
  exit 1
}

force=false
case "${1:-}" in
  '') ;;
  --force) force=true ;;
  *) fail "usage: $0 [--force]" ;;
esac

timeout 5 docker version --format '{{.Server.Version}}' >/dev/null 2>&1 || fail "no Docker engine answers (docker version); start one with: bash scripts/docker-engine.sh"
old_id=$(docker image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)
if [[ -n $old_id && $force == false ]]; then
  say "$IMAGE exists ($old_id); --force rebuilds it"
  exit 0
fi
[[ $(id -u) -eq 0 ]] || fail "building the root filesystem needs root (chroot), and this is uid $(id -u)"

work=$(mktemp -d /tmp/python-image.XXXXXX)
trap 'rm -rf "$work"' EXIT
rootfs=$work/rootfs
mkdir -p "$work/debs" "$rootfs"
started=$SECONDS

# Root may download unsandboxed: the _apt user cannot write to a temporary folder made by root.
download() { (cd "$work/debs" && apt-get download -qq -o APT::Sandbox::User=root "${PACKAGES[@]}") >&2; }
if ! download; then
  say "apt-get download failed; updating the package lists once and trying again"
  apt-get update -qq >&2 || fail "apt-get update failed: Debian's package archive is not reachable"
  download || fail "apt-get download ${PACKAGES[*]} failed"
fi

for deb in "$work"/debs/*.deb; do dpkg -x "$deb" "$rootfs"; done
# shellcheck disable=SC2016 # dpkg-deb expands ${Package} and ${Version}, not the shell
for deb in "$work"/debs/*.deb; do dpkg-deb --showformat='${Package}=${Version}\n' -W "$deb"; done | sort >"$work/versions"

# coreutils is here for `sleep` alone.
mv "$rootfs/bin/sleep" "$work/sleep"
for tool in $(dpkg-deb -c "$work"/debs/coreutils_*.deb | awk '{print $6}' | grep -E '^\./(usr/)?s?bin/[^/]+$'); do rm -f "$rootfs/${tool#./}"; done
mv "$work/sleep" "$rootfs/bin/sleep"

# Documentation, translations and glibc's iconv modules (Python's codecs do not use them) only take room.
rm -rf "$rootfs"/usr/share/{doc,man,info,locale,lintian,bug} "$rootfs"/usr/lib/x86_64-linux-gnu/gconv "$rootfs"/usr/libexec/coreutils
mkdir -p "$rootfs"/{tmp,root,etc,dev,proc,sys}
chmod 1777 "$rootfs/tmp"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$rootfs/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
cp "$work/versions" "$rootfs/etc/mcp-client-conformance-image"

# Byte-compile the standard library once, here, so no container compiles it at each start; hash-checked .pyc files
# do not record source mtimes, so the tar below can set them all to 0.
chroot "$rootfs" /usr/bin/python3 -m compileall -q --invalidation-mode unchecked-hash "/usr/lib/$PYTHON" >/dev/null ||
  fail "the image's python3 could not byte-compile its standard library (chroot $rootfs /usr/bin/python3)"

tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$rootfs" -cf "$work/rootfs.tar" .
say "root filesystem: $(du -sh "$rootfs" | cut -f1), tar sha256 $(sha256sum "$work/rootfs.tar" | cut -c1-16)…, from: $(paste -sd, "$work/versions")"

new_id=$(docker import \
  --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["python3"]' \
  "$work/rootfs.tar" "$IMAGE")
# A rebuilt image leaves the old one untagged: remove it unless a container still uses it.
if [[ -n $old_id && $old_id != "$new_id" ]]; then docker image rm "$old_id" >/dev/null 2>&1 || true; fi

check="docker run --rm --network host $IMAGE python3 -c '$DRIVER_IMPORTS; print(sys.version.split()[0])'"
version=$(docker run --rm --network host "$IMAGE" python3 -c "$DRIVER_IMPORTS; print(sys.version.split()[0])") ||
  fail "the image does not run the drivers' imports: $check"
docker run --rm --network host "$IMAGE" sleep 0 || fail "the image has no working sleep (the container adapter's keep-alive)"
say "built $IMAGE ($new_id): Python $version, $(docker image inspect --format '{{.Size}}' "$IMAGE" | numfmt --to=iec) in $((SECONDS - started)) s"
