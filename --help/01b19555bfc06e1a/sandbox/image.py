"""`python -m sandbox.image ensure`: make sure the bot image exists.

When the image named by SANDBOX_IMAGE (default gemarena-bot:current) is
missing, carries another bot library than --extra-lib (its gemarena.bot-lib
label), or with --force, builds the fast host-copy image with
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


LIB_LABEL = "gemarena.bot-lib"  # the BOT_LIB_ID of the image's bot library


def image_labels(image: str) -> dict[str, str] | None:
    """The image's labels; None when it does not exist."""
    from sandbox.docker_backend import DockerBackend

    try:
        found = DockerBackend(image).api().inspect_image(image)
    except _api_errors():
        return None
    return (found.get("Config") or {}).get("Labels") or {}


def lib_id(extra_libs: tuple[Path, ...]) -> str | None:
    """The BOT_LIB_ID among `extra_libs` (arena/sdk_lib.py stages it)."""
    ids = [f.read_text().strip() for e in extra_libs if (f := Path(e) / "BOT_LIB_ID").is_file()]
    return ids[-1] if ids else None


def ensure(
    image: str | None = None, *, force: bool = False, extra_libs: tuple[Path, ...] = ()
) -> str:
    """Build the host-copy image if `image` is missing, carries another bot
    library than `extra_libs` (by its label), or `force`; returns a one-line
    account. Raises SandboxError when Docker or the build fails."""
    image = image or image_name()
    labels = None if force else image_labels(image)
    want = lib_id(extra_libs)
    if labels is not None:
        if want is None or labels.get(LIB_LABEL) == want:
            return f"{image} present"
        kind = labels.get("gemarena.image.kind")
        if kind != "hostcopy":  # a production image, or someone else's: not ours to replace
            return (
                f"{image} present, left as it is ({kind or 'not built here'}): its bot library "
                f"is {labels.get(LIB_LABEL) or 'not labelled'}, --extra-lib's {want}"
            )
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
    cmd = sub.add_parser(
        "ensure", help="build the host-copy bot image if it is missing or its bot library is stale"
    )
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
