"""CSV downloads: the cells, the escaping and the streamed response.

The rows say what the JSON says and hide what it hides: the leaderboard's
come from the JSON's own builder, the matches' from the same columns read as
plain values (ladder/api/matches.py; tests/web/test_csv.py compares both with
the JSON). This module only turns values into cells. Text that a spreadsheet would read as a formula (a user
name such as `=HYPERLINK(...)` or `@SUM(...)`) gets a leading apostrophe.
"""

from __future__ import annotations

import csv
import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.http import StreamingHttpResponse

#: CSV downloads one web process streams at once. A long export holds one of
#: the process's threads and a database connection for seconds (10,000
#: matches: 49 s on a loaded 2-core machine), so a few callers asking for many at once left
#: no thread for the pages; another download meanwhile is answered 503.
MAX_STREAMS = 2
#: the 503's Retry-After
BUSY_RETRY_AFTER_S = 10
_streams = threading.BoundedSemaphore(MAX_STREAMS)


class ExportsBusy(Exception):
    """Every CSV stream of this web process is taken (the API answers 503)."""


CONTENT_TYPE = "text/csv; charset=utf-8"
#: what a spreadsheet takes for the start of a formula (OWASP's list: = + - @,
#: and tab and carriage return, which some applications strip before looking)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

_dates = DjangoJSONEncoder()
#: what a download's file name keeps of its parts; each run of anything else
#: (a quote, CR/LF, '/', a space) becomes one '_'
_UNSAFE_IN_FILENAME = re.compile(r"[^A-Za-z0-9._-]+")


def cell(value: Any) -> str:
    """One value as the API's JSON writes it: booleans `true`/`false`, times
    ISO 8601 in UTC, nothing as an empty cell; text that starts like a formula
    behind an apostrophe. Numbers are left alone (`-16.0` is a number, not a
    formula)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, datetime):
        return _dates.default(value)
    text = str(value)
    return "'" + text if text.startswith(FORMULA_START) else text


class _Line:
    """csv.writer's file: hands back the line it is given instead of storing it."""

    def write(self, line: str) -> str:
        return line


def csv_lines(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> Iterator[bytes]:
    """The header, then each row, one encoded line at a time (RFC 4180: CRLF,
    quotes where needed)."""
    writer = csv.writer(_Line())
    yield writer.writerow(header).encode()
    for row in rows:
        yield writer.writerow([cell(v) for v in row]).encode()


class _Stream:
    """A download's lines, holding one of the process's `MAX_STREAMS` slots
    until the server closes the response (sent, the client gone, or a HEAD
    that never read it: WSGI servers always call close); once the lines run
    out, or if the response is dropped unclosed, it is given back as well."""

    def __init__(self, lines: Iterator[bytes]) -> None:
        self._lines = lines
        self._held = True

    def __iter__(self) -> _Stream:
        return self

    def __next__(self) -> bytes:
        try:
            return next(self._lines)
        except StopIteration:
            self.close()
            raise

    def close(self) -> None:
        if self._held:
            self._held = False
            _streams.release()

    __del__ = close


def csv_response(
    filename: str, header: Sequence[str], rows: Iterable[Sequence[Any]]
) -> StreamingHttpResponse:
    """A streamed CSV download: `rows` is read as the response is sent.
    `filename` may hold the caller's text (a query's `game`): only letters,
    digits, '.', '-' and '_' of it reach the header, so a quote cannot end the
    name and add a parameter, nor CR/LF a header. ExportsBusy when the
    process streams `MAX_STREAMS` downloads already."""
    if not _streams.acquire(blocking=False):
        raise ExportsBusy(
            f"the server is sending {MAX_STREAMS} other CSV downloads just now; "
            f"try again in {BUSY_RETRY_AFTER_S} s"
        )
    response = StreamingHttpResponse(_Stream(csv_lines(header, rows)), content_type=CONTENT_TYPE)
    safe = _UNSAFE_IN_FILENAME.sub("_", filename)
    response["Content-Disposition"] = f'attachment; filename="{safe}"'
    return response
