"""CSV downloads: the cells, the escaping and the streamed response.

The rows come from the JSON API's own builders (ladder/api/schemas.py), so a
CSV says what the JSON says, and hides what it hides; this module only turns
values into cells. Text that a spreadsheet would read as a formula (a user
name such as `=HYPERLINK(...)` or `@SUM(...)`) gets a leading apostrophe.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.http import StreamingHttpResponse

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


def csv_response(
    filename: str, header: Sequence[str], rows: Iterable[Sequence[Any]]
) -> StreamingHttpResponse:
    """A streamed CSV download: `rows` is read as the response is sent.
    `filename` may hold the caller's text (a query's `game`): only letters,
    digits, '.', '-' and '_' of it reach the header, so a quote cannot end the
    name and add a parameter, nor CR/LF a header."""
    response = StreamingHttpResponse(csv_lines(header, rows), content_type=CONTENT_TYPE)
    safe = _UNSAFE_IN_FILENAME.sub("_", filename)
    response["Content-Disposition"] = f'attachment; filename="{safe}"'
    return response
