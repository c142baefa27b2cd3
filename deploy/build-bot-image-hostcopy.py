#!/usr/bin/env python3
"""Build the bot image fast, with no registry: copy the host's Debian Python.

Copies the interpreter, its standard library (minus tests, GUI and
packaging tools), the shared libraries `ldd` names for it and its extension
modules, a passwd with uid 65534 and empty /tmp and /bot into a root tree,
byte-compiles it (a read-only root never writes .pyc), and `docker import`s
it. Optionally adds a directory of Python packages at /opt/arena/lib, put on
sys.path by a .pth file (bots run with `python3 -I`, which ignores
PYTHONPATH but still reads the system dist-packages).

The image is tagged <repo>:hc-<content hash> (a hash of every file that goes
in) plus a stable alias (default gemarena-bot:current). When the hash tag
exists already, nothing is rebuilt; only the alias is moved.

Use the distribution's interpreter (/usr/bin/python3.11 on Debian 12), not
a pyenv or venv one: its prefix /usr keeps every path valid without
LD_LIBRARY_PATH. Needs the docker CLI. Stdlib only.

    deploy/build-bot-image-hostcopy.py [--extra-lib DIR] [--alias NAME:TAG]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

BUILD_VERSION = "1"  # bump when the recipe changes, so the hash changes
EXTRA_LIB_DIR = "/opt/arena/lib"
PTH_PATH = "/usr/lib/python3/dist-packages/gemarena-lib.pth"
SKIP_STDLIB = {
    "test",
    "tests",
    "idlelib",
    "tkinter",
    "turtledemo",
    "ensurepip",
    "lib2to3",
    "site-packages",
    "dist-packages",
    "__pycache__",
    "pydoc_data",
    "venv",
    "config-3.11-x86_64-linux-gnu",
}
SKIP_FILES = {"sitecustomize.py", "EXTERNALLY-MANAGED", "turtle.py"}
ETC_PASSWD = "root:x:0:0:root:/root:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
ETC_GROUP = "root:x:0:\nnogroup:x:65534:\n"
# glibc dlopens this for thread cancellation/unwinding; ldd does not list it
DLOPENED = ["libgcc_s.so.1"]


def interpreter_facts(python: str) -> dict:
    code = (
        "import json,sys,sysconfig;print(json.dumps({'exe':sys.executable,"
        "'stdlib':sysconfig.get_paths()['stdlib'],"
        "'dynload':sysconfig.get_config_var('DESTSHARED'),"
        "'version':'%d.%d'%sys.version_info[:2],'prefix':sys.prefix}))"
    )
    out = subprocess.run([python, "-I", "-c", code], check=True, capture_output=True, text=True)
    facts = json.loads(out.stdout)
    if facts["prefix"] != "/usr":
        sys.exit(
            f"{python} has prefix {facts['prefix']}; use the distribution's /usr/bin/python3.X"
        )
    return facts


def ldd_libraries(files: list[str]) -> set[str]:
    out = subprocess.run(["ldd", *files], capture_output=True, text=True).stdout
    libs = set(re.findall(r"(/\S+) \(0x", out))
    for name in DLOPENED:
        for folder in ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64"):
            if os.path.exists(os.path.join(folder, name)):
                libs.add(os.path.join(folder, name))
                break
    return libs


def plan(python: str, extra_libs: list[Path]) -> tuple[dict[str, str], dict[str, bytes]]:
    """Files to copy (image path -> host path) and files to generate."""
    facts = interpreter_facts(python)
    exe = os.path.realpath(facts["exe"])
    copies: dict[str, str] = {exe: exe}
    stdlib = facts["stdlib"]
    for root, dirs, files in os.walk(stdlib):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_STDLIB)
        for name in sorted(files):
            path = os.path.join(root, name)
            if name in SKIP_FILES or name.endswith((".pyc", ".exe")):
                continue
            real = os.path.realpath(path)
            if os.path.isfile(real):
                copies[path] = real
    dynload = sorted(p for p in copies if p.startswith(facts["dynload"]) and p.endswith(".so"))
    for lib in ldd_libraries([exe, *dynload]):
        copies[lib] = os.path.realpath(lib)
    generated = {
        "/etc/passwd": ETC_PASSWD.encode(),
        "/etc/group": ETC_GROUP.encode(),
    }
    for extra in extra_libs:
        for root, dirs, files in os.walk(extra):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".pyc"):
                    continue
                path = os.path.join(root, name)
                rel = os.path.relpath(path, extra)
                copies[os.path.join(EXTRA_LIB_DIR, rel)] = os.path.realpath(path)
    if extra_libs:
        generated[PTH_PATH] = (EXTRA_LIB_DIR + "\n").encode()
    short = facts["version"]
    generated["/usr/bin/python3"] = f"->python{short}".encode()  # symlink marker
    return copies, generated


def content_hash(copies: dict[str, str], generated: dict[str, bytes]) -> str:
    digest = hashlib.sha256(f"hostcopy {BUILD_VERSION}\n".encode())
    for dest in sorted(copies):
        src = copies[dest]
        digest.update(f"{dest} {os.stat(src).st_mode & 0o777:o}\n".encode())
        with open(src, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    for dest in sorted(generated):
        digest.update(f"{dest}\n".encode() + generated[dest])
    return digest.hexdigest()[:16]


def materialise(
    root: Path, copies: dict[str, str], generated: dict[str, bytes], python: str
) -> None:
    for link, target in (
        ("bin", "usr/bin"),
        ("lib", "usr/lib"),
        ("lib64", "usr/lib64"),
        ("sbin", "usr/sbin"),
    ):
        (root / "usr" / target[4:]).mkdir(parents=True, exist_ok=True)
        (root / link).symlink_to(target)
    for dest, src in copies.items():
        target = root / _resolve_in_root(dest)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target)
    for dest, data in generated.items():
        target = root / _resolve_in_root(dest)
        target.parent.mkdir(parents=True, exist_ok=True)
        if data.startswith(b"->"):
            target.symlink_to(data[2:].decode())
        else:
            target.write_bytes(data)
            target.chmod(0o644)
    for folder, mode in (
        ("tmp", 0o1777),
        ("bot", 0o755),
        ("proc", 0o755),
        ("dev", 0o755),
        ("sys", 0o755),
    ):
        (root / folder).mkdir(exist_ok=True)
        (root / folder).chmod(mode)
    compile_dirs = [str(p) for p in (root / "usr/lib").glob("python3*")]
    if (root / EXTRA_LIB_DIR.lstrip("/")).exists():
        compile_dirs.append(str(root / EXTRA_LIB_DIR.lstrip("/")))
    # unchecked-hash: no stat of the source at import, no writes attempted
    subprocess.run(
        [
            python,
            "-I",
            "-m",
            "compileall",
            "-q",
            "-j0",
            "--invalidation-mode",
            "unchecked-hash",
            "-s",
            str(root),
            "-p",
            "/",
            *compile_dirs,
        ],
        check=True,
    )


def _resolve_in_root(dest: str) -> str:
    """Image path without the merged-/usr symlinks (/lib -> usr/lib ...)."""
    rel = dest.lstrip("/")
    for link in ("bin/", "lib/", "lib64/", "sbin/"):
        if rel.startswith(link):
            return "usr/" + rel
    return rel


def write_tar(root: Path, tar_path: Path) -> None:
    def clean(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = 0
        return info

    with tarfile.open(tar_path, "w") as tar:
        for entry in sorted(root.iterdir()):
            tar.add(entry, arcname=entry.name, filter=clean)


def docker(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(["docker", *args], **kwargs)


def image_exists(ref: str) -> bool:
    return docker("image", "inspect", ref, capture_output=True).returncode == 0


def lib_label(extra_libs: list[Path]) -> str:
    """gemarena.bot-lib=<id> for the bot library's BOT_LIB_ID (arena/sdk_lib.py),
    so `python -m sandbox.image ensure` can tell a stale image without running it."""
    ids = [f.read_text().strip() for e in extra_libs if (f := e / "BOT_LIB_ID").is_file()]
    return f" gemarena.bot-lib={ids[-1]}" if ids else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default="/usr/bin/python3.11")
    parser.add_argument(
        "--extra-lib",
        action="append",
        type=Path,
        default=[],
        help=f"directory of packages to install at {EXTRA_LIB_DIR} (repeatable)",
    )
    parser.add_argument("--repo", default="gemarena-bot")
    parser.add_argument(
        "--alias", default=os.environ.get("SANDBOX_IMAGE") or "gemarena-bot:current"
    )
    parser.add_argument("--force", action="store_true", help="rebuild even if the hash tag exists")
    parser.add_argument("--rootfs-only", type=Path, help="write the root tree here; no import")
    args = parser.parse_args(argv)

    t0 = time.monotonic()
    for extra in args.extra_lib:
        if not extra.is_dir():
            parser.error(f"--extra-lib {extra} is not a directory")
    labels = "gemarena.image=1 gemarena.image.kind=hostcopy" + lib_label(args.extra_lib)
    copies, generated = plan(args.python, args.extra_lib)
    tag = f"{args.repo}:hc-{content_hash(copies, generated)}"
    if image_exists(tag) and not args.force and not args.rootfs_only:
        docker("tag", tag, args.alias, check=True)
        print(f"{tag} exists; {args.alias} -> it ({time.monotonic() - t0:.1f} s)")
        return 0
    with tempfile.TemporaryDirectory(prefix="gemarena-hostcopy-") as tmp:
        root = args.rootfs_only or Path(tmp) / "root"
        root.mkdir(parents=True, exist_ok=True)
        materialise(root, copies, generated, args.python)
        if args.rootfs_only:
            print(f"root tree in {root}")
            return 0
        tar_path = Path(tmp) / "root.tar"
        write_tar(root, tar_path)
        t_copy = time.monotonic() - t0
        with open(tar_path, "rb") as tar:
            docker(
                "import",
                "-c",
                "USER 65534:65534",
                "-c",
                "WORKDIR /bot",
                "-c",
                'CMD ["/usr/bin/python3", "-I", "-u", "/bot/main.py"]',
                "-c",
                f"LABEL {labels}",
                "-m",
                f"gemarena host-copy bot image ({len(copies)} files)",
                "-",
                tag,
                stdin=tar,
                check=True,
                stdout=subprocess.DEVNULL,
            )
        size = tar_path.stat().st_size
    docker("tag", tag, args.alias, check=True)
    print(
        f"built {tag} -> {args.alias}: {len(copies)} files, {size / 1e6:.1f} MB, "
        f"{t_copy:.1f} s copy + {time.monotonic() - t0 - t_copy:.1f} s import"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
