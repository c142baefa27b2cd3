#!/usr/bin/env bash
# Build every image deploy/compose.yaml names, locally (no registry):
#
#   gemarena-base:bookworm      debootstrap Debian (build-base-image.sh), unless present
#   gemarena-app:latest         web, worker and beat: the project + a virtualenv
#   gemarena-postgres:latest    PostgreSQL from Debian's package
#   gemarena-redis:latest       Redis from Debian's package
#   gemarena-bot:current        the bot image (deploy/build-bot-image.sh) — build it on
#                               every worker host, its engine runs the bots
#
# The app's Python dependencies are downloaded here once as wheels (pip on the
# host, from PyPI or your index/mirror via PIP_INDEX_URL) and installed in the
# image with --no-index, so the image build itself needs no network.
#
#   deploy/images/build-images.sh [--rebuild-base] [--skip-bot-image]
set -euo pipefail
cd "$(dirname "$0")/../.."
rebuild_base=0
bot_image=1
for arg in "$@"; do
    case "$arg" in
        --rebuild-base) rebuild_base=1 ;;
        --skip-bot-image) bot_image=0 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) echo "unknown argument: $arg" >&2; exit 2 ;;
    esac
done
python=${PYTHON:-python3}

if [ $rebuild_base = 1 ] || ! docker image inspect gemarena-base:bookworm >/dev/null 2>&1; then
    deploy/images/build-base-image.sh
fi

ctx=$(mktemp -d /var/tmp/gemarena-app-context.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
# the project's sources (what git tracks), and its dependencies as wheels
git archive --format=tar HEAD | tar -C "$ctx" -x
mkdir "$ctx/wheels"
# async-timeout: redis-py needs it below Python 3.11.3, and Debian bookworm's
# python3 is 3.11.2 — a newer host interpreter would leave it out
"$python" -m pip wheel --quiet --wheel-dir "$ctx/wheels" "$ctx" "async-timeout>=4.0.3"
rm -f "$ctx"/wheels/gem_arena-*.whl  # the app runs from its source tree

docker build --network none -f deploy/images/app.Dockerfile -t gemarena-app:latest "$ctx"
docker build --network none -f deploy/images/postgres.Dockerfile -t gemarena-postgres:latest deploy/images
docker build --network none -f deploy/images/redis.Dockerfile -t gemarena-redis:latest deploy/images
if [ $bot_image = 1 ]; then
    # the bot library staged from the same sources as the app image (not the
    # working tree, which may differ), so the workers' self-test finds its own
    # BOT_LIB_ID in the bot image; sdk_lib.py needs only the standard library
    lib=$("$python" "$ctx/arena/sdk_lib.py" /var/tmp/gemarena-bot-lib)
    deploy/build-bot-image.sh --extra-lib "$lib" --cache /var/tmp/gemarena-bot-cache
fi
docker images --filter 'reference=gemarena-*' --format '{{.Repository}}:{{.Tag}}  {{.Size}}'
