"""`python -m sandbox.image ensure`: make sure the bot image exists.

When the image named by SANDBOX_IMAGE (default gemarena-bot:current) is
missing, or with --force, builds the fast host-copy image with
deploy/build-bot-image-hostcopy.py (a few seconds; a rebuild with unchanged
inputs only re-tags). Production images come from deploy/build-bot-image.sh.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from sandbox.base import SandboxError
from sandbox.docker_backend import _api_errors, image_name

HOSTCOPY_SCRIPT = Path(__file__).resolve().parents[1] / "deploy" / "build-bot-image-hostcopy.py"


def image_exists(image: str) -> bool:
    from sandbox.docker_backend import DockerBackend

    try:
        DockerBackend(image).api().inspect_image(image)
    except _api_errors():
        return False
    return True


def ensure(
    image: str | None = None, *, force: bool = False, extra_libs: tuple[Path, ...] = ()
) -> str:
    """Build the host-copy image if `image` is missing (or `force`); returns a
    one-line account. Raises SandboxError when Docker or the build fails."""
    image = image or image_name()
    if not force and image_exists(image):
        return f"{image} present"
    if not HOSTCOPY_SCRIPT.exists():
        raise SandboxError(f"{HOSTCOPY_SCRIPT} not found (run from a source checkout)")
    cmd = [sys.executable, str(HOSTCOPY_SCRIPT), "--alias", image]
    for extra in extra_libs:
        cmd += ["--extra-lib", str(extra)]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise SandboxError(f"image build failed: {(result.stderr or result.stdout)[-2000:]}")
    return result.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sandbox.image")
    sub = parser.add_subparsers(dest="command", required=True)
    cmd = sub.add_parser("ensure", help="build the host-copy bot image if it is missing")
    cmd.add_argument(
        "--image", default=None, help="default: $SANDBOX_IMAGE or gemarena-bot:current"
    )
    cmd.add_argument("--force", action="store_true", help="rebuild (cheap when nothing changed)")
    cmd.add_argument(
        "--extra-lib",
        action="append",
        type=Path,
        default=[],
        help='the bot library: --extra-lib "$(python -m arena.sdk_lib)" (what `make image` '
        "passes); without it bots cannot import gemarena_sdk and the workers' self-test fails",
    )
    args = parser.parse_args(argv)
    try:
        print(ensure(args.image, force=args.force, extra_libs=tuple(args.extra_lib)))
    except SandboxError as exc:
        print(f"sandbox.image: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
