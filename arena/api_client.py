"""A small client for the ladder's REST API, for `arena upload` and `arena matches`.

It talks HTTP with urllib only (arena never imports Django). The server and
the token come from the environment or a config file:

    GEMARENA_URL     the site, e.g. https://arena.example.org (default http://127.0.0.1:8000)
    GEMARENA_TOKEN   an API token (create one on your account page or POST /api/tokens)
    GEMARENA_CONFIG  the config file (default $XDG_CONFIG_HOME/gemarena/config.toml,
                     i.e. ~/.config/gemarena/config.toml)

The config file is TOML with the keys `url` and `token`; the environment wins.

`read_time` and `write_time` are the API's times (its `finished_after` and
`finished_before` filters): the server reads them with the same function, so
`arena matches` refuses locally exactly what the server would.
"""

from __future__ import annotations

import json
import os
import secrets
import tomllib
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

DEFAULT_URL = "http://127.0.0.1:8000"

#: The --help epilog of the commands that talk to a server.
SERVER_HELP = (
    "The server and your API token come from GEMARENA_URL (default "
    f"{DEFAULT_URL}) and GEMARENA_TOKEN (create one on your account page, "
    '\'API tokens\'), or from `url = "..."` and `token = "..."` in '
    "~/.config/gemarena/config.toml (GEMARENA_CONFIG names another file); "
    "the environment wins."
)


def read_time(text: str) -> datetime:
    """An ISO 8601 date-time or date as the API reads a time: UTC when it names
    no offset (the API's times are UTC), converted to UTC when it does, a date
    its midnight in UTC; RFC 3339's lower-case `t` and `z` are allowed.
    ValueError when it is neither; OverflowError when the conversion leaves
    the years 1 to 9999 (9999-12-31T23:00-05:00)."""
    parsed = datetime.fromisoformat(text.strip().upper())
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def write_time(moment: datetime) -> str:
    """A time as the API writes it (UTC, `Z`)."""
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


class ClientError(Exception):
    """Something the user must fix or know; the message says what."""


class ApiError(ClientError):
    """The server answered with an error in the API's shape."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None) -> None:
        where = f" ({field})" if field else ""
        super().__init__(f"server said {status} {code}{where}: {message}")
        self.status = status
        self.code = code
        self.field = field


@dataclass(frozen=True)
class Config:
    url: str
    token: str | None
    #: where the values came from, for error messages
    source: str


def config_path(env: dict[str, str] | os._Environ = os.environ) -> Path:
    if env.get("GEMARENA_CONFIG"):
        return Path(env["GEMARENA_CONFIG"]).expanduser()
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "gemarena" / "config.toml"


def load_config(env: dict[str, str] | os._Environ = os.environ) -> Config:
    path = config_path(env)
    values: dict[str, Any] = {}
    if env.get("GEMARENA_CONFIG") and not path.is_file():
        # named on purpose: falling back to the defaults would hide a typo
        raise ClientError(f"GEMARENA_CONFIG names {path}, which is not a file")
    if path.is_file():
        try:
            values = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ClientError(f"cannot read the config file {path}: {exc}") from None
        for key in ("url", "token"):
            if key in values and not isinstance(values[key], str):
                raise ClientError(f"{path}: `{key}` must be a string")
    url = env.get("GEMARENA_URL") or values.get("url") or DEFAULT_URL
    token = env.get("GEMARENA_TOKEN") or values.get("token") or None
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme not in {"http", "https"} or not parsed.netloc:
        raise ClientError(f"the server URL {url!r} is not an http:// or https:// URL")
    return Config(url=url.rstrip("/"), token=token, source=str(path))


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    # A redirect could carry the token to another host; report it instead.
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        raise ClientError(
            f"the server redirected {req.full_url} to {newurl}; set GEMARENA_URL to the "
            "site's real address"
        )


class Client:
    def __init__(self, config: Config, timeout_s: float = 60.0) -> None:
        self.config = config
        self.timeout_s = timeout_s
        self._opener = urllib.request.build_opener(_NoRedirects)

    def _unreachable(self, why: object) -> ClientError:
        said = f"cannot reach the server at {self.config.url}: {why}"
        if self.config.url == DEFAULT_URL:  # most often: GEMARENA_URL was never set
            said += (
                f" ({DEFAULT_URL} is the default, a server on this machine: set GEMARENA_URL, "
                f'or `url = "..."` in {self.config.source}, to the site\'s address)'
            )
        return ClientError(said)

    def require_token(self) -> None:
        if not self.config.token:
            raise ClientError(
                'no API token: set GEMARENA_TOKEN, or `token = "..."` in '
                f"{self.config.source} (create a token on your account page at "
                f"{self.config.url}, or with POST /api/tokens)"
            )

    def get(self, path: str, query: dict[str, Any] | None = None) -> Any:
        return self.request("GET", path, query=query)

    def post_json(self, path: str, body: dict[str, Any]) -> Any:
        data = json.dumps(body).encode("utf-8")
        return self.request("POST", path, data=data, content_type="application/json")

    def post_file(self, path: str, field: str, filename: str, content: bytes) -> Any:
        boundary = "gemarena-" + secrets.token_hex(16)
        safe_name = filename.replace('"', "_").replace("\r", "_").replace("\n", "_")
        data = b"".join(
            [
                f"--{boundary}\r\n".encode(),
                f'Content-Disposition: form-data; name="{field}"; filename="{safe_name}"\r\n'.encode(),
                b"Content-Type: application/octet-stream\r\n\r\n",
                content,
                f"\r\n--{boundary}--\r\n".encode(),
            ]
        )
        return self.request(
            "POST", path, data=data, content_type=f"multipart/form-data; boundary={boundary}"
        )

    def request(
        self,
        method: str,
        path: str,
        *,
        query: dict[str, Any] | None = None,
        data: bytes | None = None,
        content_type: str | None = None,
    ) -> Any:
        url = self.config.url + path
        if query:
            clean = {k: v for k, v in query.items() if v is not None}
            url += "?" + urllib.parse.urlencode(clean)
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Accept", "application/json")
        request.add_header("User-Agent", "gemarena-cli/1")
        if content_type:
            request.add_header("Content-Type", content_type)
        if self.config.token:
            request.add_header("Authorization", f"Bearer {self.config.token}")
        try:
            with self._opener.open(request, timeout=self.timeout_s) as response:
                body = response.read()
        except urllib.error.HTTPError as exc:
            raise _api_error(exc) from None
        except urllib.error.URLError as exc:
            raise self._unreachable(exc.reason) from None
        except (TimeoutError, ConnectionError) as exc:
            raise self._unreachable(exc) from None
        if not body:
            return None
        try:
            return json.loads(body)
        except ValueError:
            raise ClientError(
                f"{url} did not answer with JSON; is {self.config.url} a Gem Arena site?"
            ) from None


def _api_error(exc: urllib.error.HTTPError) -> ClientError:
    try:
        raw = exc.read()
        error = json.loads(raw)["error"]
        return ApiError(exc.code, error["code"], error["message"], error.get("field"))
    except (ValueError, KeyError, TypeError, OSError):
        return ClientError(
            f"server said {exc.code} {exc.reason} for {exc.url} (not an API error; is the URL "
            "a Gem Arena site?)"
        )


def find_bot(client: Client, name: str, game: str | None, mine: bool = False) -> dict | None:
    """The bot of that name (in that game) as the server matches names (capitals
    ignored, '_' as '-'); ClientError if the name is ambiguous."""
    page = client.get(
        "/api/bots",
        {"name": name, "game": game, "mine": "true" if mine else None, "page_size": 100},
    )
    bots = page["results"]
    if len(bots) > 1:
        found = ", ".join(sorted(f"{b['name']} ({b['game']})" for b in bots))
        raise ClientError(f"there are several bots named {name!r}: {found}; add --game GAME")
    return bots[0] if bots else None
