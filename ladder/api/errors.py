"""The API's one error shape, and the handlers that turn every failure into it.

Every error response under /api/ is

    {"error": {"code": "not_found", "message": "no bot with id 7", "field": null}}

`code` is one of ERROR_CODES (stable, for programs), `message` is for people,
`field` names the request field at fault when there is one (e.g. "file",
"opponents", "query.page"). Validation errors add `details`: every problem
found, each with its own field and message.
"""

from __future__ import annotations

import logging
import unicodedata
from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from ninja import Schema
from ninja.errors import AuthenticationError, HttpError, Throttled, ValidationError

from ladder.bots import BOT_NAME_PATTERN, BOT_NAME_RULE, Gone, LimitError, StorageFailure
from ladder.csv_export import BUSY_RETRY_AFTER_S, ExportsBusy
from ladder.health import DATABASE_AWAY, DATABASE_AWAY_RETRY_S
from ladder.tokens import HIDDEN_CATEGORIES
from ladder.uploads import CheckUnavailable, UploadError

logger = logging.getLogger(__name__)

#: status → the default code for it
ERROR_CODES: dict[int, str] = {
    400: "bad_request",
    401: "unauthenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    422: "invalid",
    429: "rate_limited",
    500: "server_error",
    503: "unavailable",
}


class ApiError(Exception):
    """Raised anywhere under a view: becomes the error response as it is."""

    def __init__(
        self, status: int, message: str, *, code: str | None = None, field: str | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code or ERROR_CODES[status]
        self.message = message
        self.field = field


class ErrorDetail(Schema):
    field: str | None = None
    message: str


class ErrorBody(Schema):
    code: str
    message: str
    field: str | None = None
    details: list[ErrorDetail] | None = None


class ErrorOut(Schema):
    error: ErrorBody


def _hidden_class() -> str:
    """HIDDEN_CATEGORIES of the Basic Multilingual Plane as regex class ranges
    (`\\uXXXX`, which Python, Rust and JavaScript regexes all read)."""
    ranges: list[list[int]] = []
    for code in range(0x10000):
        if unicodedata.category(chr(code)) in HIDDEN_CATEGORIES:
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1][1] = code
            else:
                ranges.append([code, code])
    return "".join(
        f"\\u{low:04x}" if low == high else f"\\u{low:04x}-\\u{high:04x}" for low, high in ranges
    )


_HIDDEN = _hidden_class()

#: Text a user sends: PostgreSQL cannot store a NUL character (it was a 500 there).
NO_NUL = r"^[^\x00]*$"
#: ...and a name: also something other than spaces, and no hidden characters
#: (the schema's half of `hidden_character`, which also covers the other planes).
NAME_TEXT = rf"^[^{_HIDDEN}]*[^\s{_HIDDEN}][^{_HIDDEN}]*$"
#: Public free text (a bot's description): no hidden characters, which could
#: reverse or hide what the page around it says.
PLAIN_TEXT = rf"^[^{_HIDDEN}]*$"
#: A bot's name.
BOT_NAME = BOT_NAME_PATTERN
#: What a mismatch of these patterns means, for the error message.
PATTERN_MEANING = {
    NO_NUL: "text may not contain NUL characters (\\u0000)",
    NAME_TEXT: "needs a character other than spaces, and no control or formatting "
    "characters (NUL characters, BEL, U+202E and the like)",
    PLAIN_TEXT: "no control or formatting characters (NUL, BEL, escape, U+202E and the "
    "like): the text is shown publicly",
    BOT_NAME: BOT_NAME_RULE,
}
#: pydantic error types of our own (raised as PydanticCustomError)
NOT_AN_OBJECT = "body_not_object"


def error_response(
    status: int,
    message: str,
    *,
    code: str | None = None,
    field: str | None = None,
    details: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> JsonResponse:
    body: dict[str, Any] = {
        "code": code or ERROR_CODES[status],
        "message": message,
        "field": field,
    }
    if details is not None:
        body["details"] = details
    response = JsonResponse({"error": body}, status=status)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def errors(*statuses: int) -> dict[int, type[ErrorOut]]:
    """`response=` entries documenting the error statuses an operation may return
    (every operation may answer 400, 401 for a bad token, 422 and 500)."""
    return dict.fromkeys(sorted({400, 401, 422, 500, *statuses}), ErrorOut)


def binary_response(description: str, media_type: str) -> dict:
    """`openapi_extra=` for an operation whose 200 is a file download."""
    binary = {"schema": {"type": "string", "format": "binary"}}
    return {"responses": {200: {"description": description, "content": {media_type: binary}}}}


def _field_of(loc: tuple | list) -> str | None:
    """ninja's error location ("query", "page") → "query.page"; body fields lose the prefix."""
    parts = [str(p) for p in loc]
    if parts and parts[0] in {"body", "form", "file"}:
        parts = parts[1:]
        # a JSON body is one parameter named after the schema; drop that name
        if len(parts) > 1 and parts[0] in {"data", "payload", "body"}:
            parts = parts[1:]
    return ".".join(parts) or None


def _validation(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    details = []
    for item in exc.errors:
        loc = item.get("loc", ())
        kind = item.get("type")
        if kind == "json_invalid" or (loc and loc[-1] == "__root__"):
            return error_response(400, f"the request body is not valid JSON: {item.get('msg')}")
        # the body as a whole, not one of its fields: empty, or no object
        if kind == "missing" and len(loc) == 2 and loc[0] == "body":
            return _whole_body("the request body is empty: send a JSON object")
        if kind == NOT_AN_OBJECT:
            return _whole_body(str(item.get("msg")))
        message = str(item.get("msg", "invalid"))
        message = PATTERN_MEANING.get(item.get("ctx", {}).get("pattern"), message)  # not a regex
        if kind == "extra_forbidden":
            message = "no such field in this request (misspelled?)"
        details.append({"field": _field_of(loc), "message": message})
    first = details[0] if details else {"field": None, "message": "invalid request"}
    message = f"{first['field']}: {first['message']}" if first["field"] else str(first["message"])
    return error_response(422, message, field=first["field"], details=details)


def _whole_body(message: str) -> HttpResponse:
    return error_response(422, message, details=[{"field": None, "message": message}])


def _api_error(request: HttpRequest, exc: ApiError) -> HttpResponse:
    return error_response(exc.status, exc.message, code=exc.code, field=exc.field)


def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    status = exc.status_code
    if isinstance(exc, AuthenticationError):
        return error_response(
            401, "sign in, or send an API token as 'Authorization: Bearer <token>'"
        )
    if status == 400 and str(exc.message).startswith("Cannot parse request body"):
        # ninja's words for a body its JSON parser refused
        return error_response(400, f"the request body is not valid JSON: {exc.__cause__}")
    headers = {}
    if isinstance(exc, Throttled) and exc.wait:
        headers["Retry-After"] = str(int(exc.wait) + 1)
    if status not in ERROR_CODES:
        status = 400 if 400 <= status < 500 else 500
    return error_response(status, exc.message, headers=headers)


def _upload_error(request: HttpRequest, exc: UploadError) -> HttpResponse:
    if isinstance(exc, LimitError):
        wait = exc.retry_after_s
        return error_response(429, str(exc), headers={"Retry-After": str(wait)} if wait else {})
    if isinstance(exc, Gone):  # deleted while the upload was on its way
        return error_response(404, str(exc))
    return error_response(422, str(exc), code="upload_rejected", field="file")


def _storage_failure(request: HttpRequest, exc: StorageFailure) -> HttpResponse:
    logger.error("upload not stored on %s: %s", request.path, exc.__cause__)
    return error_response(503, str(exc), headers={"Retry-After": "60"})


def _check_unavailable(request: HttpRequest, exc: CheckUnavailable) -> HttpResponse:
    # the cause is logged where it happened (ladder.uploads)
    return error_response(503, str(exc), headers={"Retry-After": "60"})


def _exports_busy(request: HttpRequest, exc: ExportsBusy) -> HttpResponse:
    return error_response(503, str(exc), headers={"Retry-After": str(BUSY_RETRY_AFTER_S)})


def database_away() -> JsonResponse:
    """The answer while the database is away, from any route (see also
    ladder.views.server_error)."""
    return error_response(
        503,
        "the database is not reachable just now; try again shortly (if you sent a change, "
        "check whether it was made before you send it again)",
        headers={"Retry-After": str(DATABASE_AWAY_RETRY_S)},
    )


def _unexpected(request: HttpRequest, exc: Exception) -> HttpResponse:
    if isinstance(exc, Http404):
        return error_response(404, "not found")
    if isinstance(exc, PermissionDenied):
        return error_response(403, str(exc) or "you may not do this")
    if isinstance(exc, RequestDataTooBig):
        return error_response(413, "the request body is too large")
    if isinstance(exc, DATABASE_AWAY):
        logger.error(
            "API %s %s: the database is not reachable: %s", request.method, request.path, exc
        )
        return database_away()
    logger.exception("API error on %s %s", request.method, request.path)
    return error_response(500, "the server failed to handle this request; it has been logged")


def install_handlers(api) -> None:
    api.add_exception_handler(ApiError, _api_error)
    api.add_exception_handler(ValidationError, _validation)
    api.add_exception_handler(HttpError, _http_error)
    api.add_exception_handler(UploadError, _upload_error)
    api.add_exception_handler(StorageFailure, _storage_failure)
    api.add_exception_handler(CheckUnavailable, _check_unavailable)
    api.add_exception_handler(ExportsBusy, _exports_busy)
    api.add_exception_handler(Exception, _unexpected)


@csrf_exempt
def not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    """Every URL under /api/ that names no endpoint."""
    return error_response(404, f"no API endpoint at {request.path}")


def method_not_allowed(response: HttpResponse) -> HttpResponse:
    """ninja's plain-text 405 in the error shape, keeping its Allow header."""
    allowed = response.get("Allow", "")
    if "GET" in allowed.split(", ") and "HEAD" not in allowed:
        allowed += ", HEAD"  # see ladder.api._json_405
    return error_response(
        405,
        f"this endpoint does not accept that method (allowed: {allowed})",
        headers={"Allow": allowed},
    )
