"""Reading settings from environment variables, with errors that name the variable.

Settings come only from the environment (docs/operations.md); a bad value
stops start-up with a message saying which variable is wrong and why: one
line on stderr, not a traceback (`report_setting_errors`).
"""

from __future__ import annotations

import os
import re
import secrets
import sys
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured


class SettingError(ImproperlyConfigured):
    """A bad environment variable; the message names it and says what is wrong."""


def report_setting_errors() -> None:
    """Print an uncaught SettingError as one line instead of a traceback.

    Settings are read at import time by manage.py, celery and gunicorn alike,
    and an operator needs the variable and the reason, not the import stack.
    Any other exception keeps the usual hook."""
    previous = sys.excepthook
    if getattr(previous, "gemarena_settings", False):
        return

    def hook(exc_type, exc, tb) -> None:
        if issubclass(exc_type, SettingError):
            sys.stderr.write(f"Gem Arena cannot start: {exc} (docs/operations.md, Settings)\n")
            return
        previous(exc_type, exc, tb)

    hook.gemarena_settings = True  # type: ignore[attr-defined]
    sys.excepthook = hook


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise SettingError(f"{name}={raw!r}: expected one of 1/0, true/false, yes/no, on/off")


def env_int(name: str, default: int, minimum: int | None = None, maximum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise SettingError(f"{name}={raw!r}: expected a whole number") from None
    if minimum is not None and value < minimum:
        raise SettingError(f"{name}={value}: must be at least {minimum}")
    if maximum is not None and value > maximum:
        raise SettingError(f"{name}={value}: must be at most {maximum}")
    return value


def env_match(name: str, default: str, pattern: str, meaning: str) -> str:
    """Text that must match `pattern` whole (`meaning` says what it allows);
    unset or empty is the default."""
    value = env_str(name) or default
    if not re.fullmatch(pattern, value):
        raise SettingError(f"{name}={value!r}: {meaning}")
    return value


def env_choice(name: str, choices: tuple[str, ...], default: str) -> str:
    value = env_str(name, default).lower()
    if value not in choices:
        raise SettingError(f"{name}={value!r}: expected one of {', '.join(choices)}")
    return value


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return list(default or [])
    return [item.strip() for item in raw.split(",") if item.strip()]


#: the engines a DATABASE_URL may name: what the platform is built and tested on
DATABASE_ENGINES = ("django.db.backends.postgresql", "django.db.backends.sqlite3")
POSTGRES_EXAMPLE = "postgres://user:password@host:5432/gemarena"


def database_from_url(name: str, url: str, **options: Any) -> dict[str, Any]:
    """Django's DATABASES entry for a PostgreSQL (or SQLite file) URL.

    The messages raised here never repeat the URL: it holds the password."""
    try:
        database = dj_database_url.parse(url, **options)
    except Exception as exc:  # dj_database_url raises several types
        raise SettingError(f"{name} is not a database URL: {exc}") from None
    scheme = url.partition(":")[0]
    if database["ENGINE"] not in DATABASE_ENGINES:
        # e.g. mysql:// would fail later with a traceback about a missing driver
        raise SettingError(
            f"{name}: {scheme}:// databases are not supported; give a PostgreSQL URL "
            f"({POSTGRES_EXAMPLE}), or leave it unset for the embedded SQLite"
        )
    if database["ENGINE"] == "django.db.backends.postgresql" and not database["NAME"]:
        raise SettingError(f"{name}: the URL names no database; give it as {POSTGRES_EXAMPLE}")
    if database["ENGINE"] == "django.db.backends.sqlite3" and database["NAME"] == ":memory:":
        raise SettingError(
            f"{name}: sqlite:// names no file (an in-memory database is empty in every "
            "process); give sqlite:////absolute/path.sqlite3, or leave it unset"
        )
    return database


def install_secret_key(path: Path) -> str:
    """The embedded default's SECRET_KEY when none is set: made once per
    install and kept in `path` (mode 0600), so sessions survive a restart and
    no two installs share a key. Web, worker and beat start at once: the
    first process to link its key into place wins and the others read it."""
    if not path.exists():
        key = secrets.token_urlsafe(50)
        partial = path.with_name(f".{path.name}-{os.getpid()}-{secrets.token_hex(4)}")
        try:
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as out:
                out.write(key + "\n")
            try:
                os.link(partial, path)  # never replaces: another process may have won
            except FileExistsError:
                pass
            finally:
                os.unlink(partial)
        except OSError as exc:
            raise SettingError(
                f"SECRET_KEY is not set and {str(path)!r} cannot be written ({exc.strerror}); "
                "set SECRET_KEY or make GEMARENA_VAR_DIR writable"
            ) from None
    try:
        key = path.read_text().strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingError(
            f"SECRET_KEY is not set and {str(path)!r} cannot be read ({exc})"
        ) from None
    if len(key) < 50:
        raise SettingError(
            f"{str(path)!r} holds no usable SECRET_KEY (under 50 characters); "
            "delete it to have a new one made (everyone is logged out)"
        )
    return key


def make_dir(variable: str, path: Path) -> Path:
    """Create the folder a setting names (and its parents); a SettingError
    naming the variable when it cannot be made."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SettingError(f"{variable}={str(path)!r}: cannot create it ({exc.strerror})") from None
    return path
