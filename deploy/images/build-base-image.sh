#!/usr/bin/env bash
# Build the base image of the platform's own containers (web, worker, beat,
# PostgreSQL, Redis) with no registry: debootstrap a minimal Debian with the
# packages below, trim it, `docker import` it as gemarena-base:<suite>.
# One base for all five services: one download, one tree to keep patched.
#
# Needs root, debootstrap, the docker CLI and a Debian mirror (or a local
# mirror/apt cache given with --mirror). Takes 2-4 minutes.
#
#   deploy/images/build-base-image.sh [--suite bookworm] [--mirror URL] [--tag NAME:TAG]
set -euo pipefail

suite=bookworm
mirror=http://deb.debian.org/debian
tag=""
# python3-venv: the app's virtualenv; libpq5: psycopg's fallback; tini: PID 1
# that forwards signals; postgresql + redis-server: the two service images
packages=python3,python3-venv,ca-certificates,libpq5,tini,postgresql,redis-server,procps

while [ $# -gt 0 ]; do
    case "$1" in
        --suite) suite=$2; shift 2 ;;
        --mirror) mirror=$2; shift 2 ;;
        --tag) tag=$2; shift 2 ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
tag=${tag:-gemarena-base:$suite}

[ "$(id -u)" = 0 ] || { echo "run as root (debootstrap needs chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "apt-get install debootstrap" >&2; exit 1; }

start=$(date +%s)
work=$(mktemp -d /var/tmp/gemarena-base-image.XXXXXX)
trap 'rm -rf "$work"' EXIT
rootfs=$work/rootfs
# Two stages, so the packages are configured with nothing able to reach the
# host: the postgresql and redis-server packages try to (re)start their
# services while they are configured, and a chroot shares the host's process
# list and network, so a host's own PostgreSQL or Redis could be stopped (a
# QA build on 2026-12-02 coincided with both restarting). The second stage
# runs with service starts refused (policy-rc.d) in its own process and
# network namespaces.
debootstrap --foreign --variant=minbase --include="$packages" "$suite" "$rootfs" "$mirror" \
    > "$work/debootstrap.log" 2>&1 || { tail -30 "$work/debootstrap.log" >&2; exit 1; }
mkdir -p "$rootfs/usr/sbin"
printf '#!/bin/sh\n# no service starts while the image is built\nexit 101\n' > "$rootfs/usr/sbin/policy-rc.d"
chmod 755 "$rootfs/usr/sbin/policy-rc.d"
unshare --pid --net --fork --mount-proc="$rootfs/proc" \
    chroot "$rootfs" /debootstrap/debootstrap --second-stage \
    >> "$work/debootstrap.log" 2>&1 || { tail -30 "$work/debootstrap.log" >&2; exit 1; }
rm -f "$rootfs/usr/sbin/policy-rc.d"
umount "$rootfs/proc" 2>/dev/null || true
# the package's default cluster is not wanted: the entrypoint makes one in a volume
unshare --pid --net --fork chroot "$rootfs" sh -c 'pg_dropcluster --stop $(ls /usr/lib/postgresql) main' 2>/dev/null || true
rm -rf "$rootfs"/usr/share/{doc,man,info,locale,lintian}/* \
    "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*
tar -C "$rootfs" --sort=name --numeric-owner -cpf "$work/rootfs.tar" .
docker import -c 'ENV LANG=C.UTF-8' -c 'LABEL gemarena.image=1 gemarena.image.kind=base' \
    -m "gemarena debootstrap $suite base" "$work/rootfs.tar" "$tag" > /dev/null
echo "built $tag: $(( $(stat -c %s "$work/rootfs.tar") / 1000000 )) MB, $(( $(date +%s) - start )) s"
