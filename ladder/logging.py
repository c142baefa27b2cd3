"""Structured logs: every record carries the match it belongs to and the worker.

`match_context(match_id)` marks the records logged while a match is played
(by the ladder, the runner and the sandbox alike). The runner's seat threads
do not inherit context variables; they are named after the match
(`ask-<match>_0`), which is where their records get it from. `ContextFilter`
puts `match_id` and `worker` on every record; `JsonFormatter` writes one JSON
object per line (LOG_FORMAT=json), the plain format shows them as
`[match=12 worker=w1@host]`.
"""

from __future__ import annotations

import contextvars
import json
import logging
import os
import re
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

_match_id: contextvars.ContextVar[str] = contextvars.ContextVar("gemarena_match_id", default="")
#: thread names of the match runner's pools: start-<tag>_0, ask-<tag>_1, stop-<tag>_0
_RUNNER_THREAD = re.compile(r"^(?:start|ask|stop)-(\w+)_\d+$")
_worker = {"name": os.environ.get("GEMARENA_WORKER_NAME", "") or socket.gethostname()}

#: attributes every LogRecord has; anything else was passed with `extra=`
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


def set_worker_name(name: str) -> None:
    """The Celery worker's node name (w1@host), once it is known."""
    _worker["name"] = name


@contextmanager
def match_context(match_id: int | str) -> Iterator[None]:
    token = _match_id.set(str(match_id))
    try:
        yield
    finally:
        _match_id.reset(token)


def current_match_id() -> str:
    found = _match_id.get()
    if not found:
        runner = _RUNNER_THREAD.match(threading.current_thread().name)
        found = runner.group(1) if runner else ""
    return found


class ContextFilter(logging.Filter):
    """Adds `match_id` ("" outside a match) and `worker` to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "match_id", ""):
            record.match_id = current_match_id()
        record.worker = _worker["name"]
        record.context = f" [match={record.match_id}]" if record.match_id else ""
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, match_id, worker,
    any `extra=` fields, and the traceback when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        data = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "match_id": getattr(record, "match_id", "") or None,
            "worker": getattr(record, "worker", ""),
            "process": record.process,
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in data and key != "context":
                data[key] = value if isinstance(value, str | int | float | bool) else repr(value)
        if record.exc_info:
            data["traceback"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False)


def logging_config(log_format: str, level: str) -> dict:
    """The LOGGING setting (config/settings.py): plain or JSON lines on stderr."""
    formatters = {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s%(context)s %(message)s"},
        "json": {"()": "ladder.logging.JsonFormatter"},
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "ladder.logging.ContextFilter"}},
        "formatters": formatters,
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": log_format,
                "filters": ["context"],
            }
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            "django.db.backends": {"level": "WARNING"},
            # gunicorn's and celery's own loggers propagate to the root handler
            "celery": {"level": level},
        },
    }
