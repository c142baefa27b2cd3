"""`python -m sandbox check|reap`: operator commands for the bot sandbox."""

from __future__ import annotations

import argparse
import sys

from sandbox import BACKEND_NAMES, SandboxError, get_backend


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sandbox")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="can this machine launch bots?")
    check.add_argument(
        "--backend",
        choices=BACKEND_NAMES,
        default=None,
        help="the backend to check (default: SANDBOX_BACKEND, else auto)",
    )
    reap = sub.add_parser("reap", help="remove orphaned bot containers")
    reap.add_argument(
        "--older-than",
        type=float,
        default=None,
        metavar="S",
        help="seconds (default: SANDBOX_REAP_AFTER_S or 3 h)",
    )
    reap.add_argument(
        "--dry-run", action="store_true", help="list the containers it would remove, remove none"
    )
    args = parser.parse_args(argv)

    try:
        if args.command == "check":
            backend = get_backend(args.backend)
            problem = backend.self_check()
            safe = "safe" if backend.safe_for_untrusted else "NOT safe for untrusted code"
            print(f"{backend.name} backend ({safe}): {problem or 'ok'}")
            return 1 if problem else 0
        from sandbox.reaper import default_older_than_s
        from sandbox.reaper import reap as do_reap

        older = default_older_than_s() if args.older_than is None else args.older_than
        if not older > 0:
            raise SandboxError(f"--older-than {older:g}: expected seconds above 0")
        removed = do_reap(older, dry_run=args.dry_run)
        verb = "would remove" if args.dry_run else "removed"
        print(f"{verb} {len(removed)} container(s) older than {older:.0f} s")
        for name in removed:
            print(f"  {name}")
        return 0
    except SandboxError as exc:
        print(f"sandbox: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
