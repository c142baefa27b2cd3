"""Values that used to pass `manage.py check` and fail only at run time (a
sandbox timeout overflow, Docker's int64, kombu's file names, a database URL
without a database) now stop start-up with one line naming the variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.config.test_settings import manage


def refused(tmp_path: Path, **env: str) -> str:
    out = manage("check", GEMARENA_VAR_DIR=str(tmp_path), **env)
    assert out.returncode != 0, out.stdout
    assert "Traceback" not in out.stderr, out.stderr
    assert out.stderr.startswith("Gem Arena cannot start: "), out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    return out.stderr


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("MOVE_MS", "3000000000", "MOVE_MS=3000000000: must be at most 3600000"),
        ("STARTUP_MS", "99999999999999999999", "must be at most 3600000"),
        ("BANK_MS", "3600001", "BANK_MS=3600001: must be at most 3600000"),
        ("BOT_MEMORY_MIB", "99999999999999999999", "must be at most 65536"),
        ("WORKER_STALE_SECONDS", "10000000000", "must be at most 86400"),
        ("WORKER_HEARTBEAT_SECONDS", "86401", "must be at most 86400"),
        ("MATCH_STALE_SECONDS", "99999999999999999999", "must be at most 86400"),
    ],
)
def test_limits_have_a_maximum(tmp_path: Path, name: str, value: str, message: str) -> None:
    assert message in refused(tmp_path, **{name: value})


def test_the_bot_memory_is_at_least_what_a_bot_starts_in(tmp_path: Path) -> None:
    from sandbox.base import MIN_MEMORY_MIB

    too_little = MIN_MEMORY_MIB - 1
    error = refused(tmp_path, BOT_MEMORY_MIB=str(too_little))
    assert f"BOT_MEMORY_MIB={too_little}: must be at least {MIN_MEMORY_MIB}" in error


def test_the_largest_limits_are_accepted(tmp_path: Path) -> None:
    out = manage(
        "check",
        GEMARENA_VAR_DIR=str(tmp_path),
        MOVE_MS="3600000",
        BANK_MS="3600000",
        STARTUP_MS="3600000",
        BOT_MEMORY_MIB="65536",
        GEMARENA_QUEUE="gemarena-test.1_A",
    )
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("queue", ["a/b", "../queue", "two words", "x" * 101])
def test_queue_name_is_limited_to_safe_characters(tmp_path: Path, queue: str) -> None:
    error = refused(tmp_path, GEMARENA_QUEUE=queue)
    assert f"GEMARENA_QUEUE={queue!r}: a queue name is 1-100 letters, digits" in error


@pytest.mark.parametrize(
    "url, message",
    [
        ("postgres://", "DATABASE_URL: the URL names no database"),
        ("postgres://u:s3cret@127.0.0.1:5432/", "DATABASE_URL: the URL names no database"),
        ("mysql://u:s3cret@x/db", "DATABASE_URL: mysql:// databases are not supported"),
        ("postgis://u:s3cret@h/db", "DATABASE_URL: postgis:// databases are not supported"),
        ("sqlite://", "DATABASE_URL: sqlite:// names no file"),
    ],
)
def test_database_url_must_name_a_supported_database(
    tmp_path: Path, url: str, message: str
) -> None:
    error = refused(tmp_path, DATABASE_URL=url)
    assert message in error
    assert "s3cret" not in error  # the URL holds the password: never echoed


def test_a_sqlite_file_url_is_still_accepted(tmp_path: Path) -> None:
    code = "from django.conf import settings as s;print(s.DATABASES['default']['NAME'])"
    url = f"sqlite:///{tmp_path}/other.sqlite3"
    out = manage(
        "shell", "--no-imports", "-c", code, GEMARENA_VAR_DIR=str(tmp_path), DATABASE_URL=url
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"{tmp_path}/other.sqlite3"
