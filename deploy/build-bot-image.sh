#!/usr/bin/env bash
# Build the production bot image with no registry: debootstrap a minimal
# Debian (python3 only, like the host-copy image), trim it, optionally add a directory of
# Python packages at /opt/arena/lib (on sys.path through a .pth file, since
# bots run with `python3 -I`), then `docker import` it.
#
# Tags: <repo>:deb-<sha256 of the root tarball, 16 hex> and a stable alias
# (default $SANDBOX_IMAGE or gemarena-bot:current) that the sandbox uses.
#
# Needs root (chroot, device nodes), debootstrap, the docker CLI and a Debian
# mirror. Takes 1-2 minutes. With --cache DIR the trimmed base tree is kept as
# a tarball, so rebuilding after the extra library changed takes seconds.
#
#   deploy/build-bot-image.sh [--extra-lib DIR]... [--alias NAME:TAG] [--repo NAME]
#                             [--suite bookworm] [--mirror URL] [--cache DIR]
set -euo pipefail

suite=bookworm
mirror=http://deb.debian.org/debian
repo=gemarena-bot
alias_tag=${SANDBOX_IMAGE:-gemarena-bot:current}
packages=python3
cache=""
extra_libs=()

while [ $# -gt 0 ]; do
    case "$1" in
        --extra-lib|--alias|--repo|--suite|--mirror|--cache)
            [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; } ;;
    esac
    case "$1" in
        --extra-lib) extra_libs+=("$(realpath "$2")"); shift 2 ;;
        --alias) alias_tag=$2; shift 2 ;;
        --repo) repo=$2; shift 2 ;;
        --suite) suite=$2; shift 2 ;;
        --mirror) mirror=$2; shift 2 ;;
        --cache) cache=$(realpath -m "$2"); shift 2 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done

[ "$(id -u)" = 0 ] || { echo "run as root (debootstrap needs chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "apt-get install debootstrap" >&2; exit 1; }
for dir in "${extra_libs[@]}"; do
    [ -d "$dir" ] || { echo "--extra-lib $dir is not a directory" >&2; exit 2; }
done

start=$(date +%s)
work=$(mktemp -d /var/tmp/gemarena-bot-image.XXXXXX)
trap 'rm -rf "$work"' EXIT
rootfs=$work/rootfs
base_tar=${cache:+$cache/base-$suite.tar}

if [ -n "$base_tar" ] && [ -f "$base_tar" ]; then
    echo "using cached base tree $base_tar"
    mkdir "$rootfs"
    tar -C "$rootfs" -xpf "$base_tar"
else
    debootstrap --variant=minbase --include="$packages" "$suite" "$rootfs" "$mirror" \
        > "$work/debootstrap.log" 2>&1 || { tail -30 "$work/debootstrap.log" >&2; exit 1; }
    # trim: documentation, translations, package caches, logs, Python's tests
    rm -rf "$rootfs"/usr/share/{doc,man,info,locale,lintian,linda}/* \
        "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/* \
        "$rootfs"/var/cache/debconf/*-old "$rootfs"/var/log/* \
        "$rootfs"/usr/lib/python3*/test "$rootfs"/usr/lib/python3*/idlelib \
        "$rootfs"/usr/lib/python3*/ensurepip "$rootfs"/usr/lib/python3*/lib2to3/tests
    # no setuid/setgid programs at all (no-new-privileges blocks them anyway)
    find "$rootfs" -xdev -type f -perm /6000 -exec chmod ug-s {} +
    mkdir -p "$rootfs/bot" && chmod 755 "$rootfs/bot"
    if [ -n "$base_tar" ]; then
        mkdir -p "$cache"
        tar -C "$rootfs" --numeric-owner -cpf "$base_tar" .
    fi
fi

lib_label=""  # the bot library's id (arena/sdk_lib.py), for `python -m sandbox.image ensure`
for dir in "${extra_libs[@]}"; do
    if [ -f "$dir/BOT_LIB_ID" ]; then lib_label=" gemarena.bot-lib=$(tr -dc 0-9a-f < "$dir/BOT_LIB_ID")"; fi
done
if [ ${#extra_libs[@]} -gt 0 ]; then
    mkdir -p "$rootfs/opt/arena/lib"
    for dir in "${extra_libs[@]}"; do
        cp -a "$dir/." "$rootfs/opt/arena/lib/"
    done
    find "$rootfs/opt/arena/lib" -name __pycache__ -prune -exec rm -rf {} +
    chmod -R a+rX "$rootfs/opt/arena"
    echo /opt/arena/lib > "$rootfs/usr/lib/python3/dist-packages/gemarena-lib.pth"
    # byte-compile with the image's own interpreter; unchecked-hash pycs are
    # used as they are, and the read-only root never tries to write new ones
    chroot "$rootfs" /usr/bin/python3 -m compileall -q --invalidation-mode unchecked-hash /opt/arena/lib
fi

tar -C "$rootfs" --sort=name --numeric-owner -cpf "$work/rootfs.tar" .
hash=$(sha256sum "$work/rootfs.tar" | cut -c1-16)
tag=$repo:deb-$hash
size_mb=$(( $(stat -c %s "$work/rootfs.tar") / 1000000 ))
docker import \
    -c 'USER 65534:65534' -c 'WORKDIR /bot' \
    -c 'CMD ["/usr/bin/python3", "-I", "-u", "/bot/main.py"]' \
    -c "LABEL gemarena.image=1 gemarena.image.kind=debootstrap$lib_label" \
    -m "gemarena debootstrap $suite bot image" \
    "$work/rootfs.tar" "$tag" > /dev/null
docker tag "$tag" "$alias_tag"
echo "built $tag -> $alias_tag: rootfs ${size_mb} MB, $(( $(date +%s) - start )) s"
