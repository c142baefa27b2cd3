"""Reading settings from environment variables, with errors that name the variable.

Settings come only from the environment (DESIGN.md "Running"); a bad value
stops start-up with a message saying which variable is wrong and why: one
line on stderr, not a traceback (`report_setting_errors`).
"""

from __future__ import annotations

import os
import sys

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
