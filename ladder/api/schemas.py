"""What the API sends and accepts. Builders take the viewer, so private
fields (logs, source links) are filled only for the bot's owner and staff."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from django.conf import settings
from django.urls import reverse
from ninja import Field, Schema
from ninja.schema import DjangoGetter
from pydantic import ConfigDict, StrictBool, StrictInt, field_validator, model_validator
from pydantic_core import PydanticCustomError

from arena import all_games
from ladder.api.auth import sees_private
from ladder.api.errors import BOT_NAME, NOT_AN_OBJECT, PLAIN_TEXT
from ladder.challenges import MAX_ID, MAX_OPTIONS_BYTES, options_bytes
from ladder.game_options import GameRules, json_kind
from ladder.matches import names_played_as
from ladder.models import Bot, BotVersion, Match, MatchSeat, Rating

MAX_PAGE = 100_000


class BodyIn(Schema):
    """A JSON request body: an object, with no fields but the declared ones (a
    misspelled field is refused, not silently dropped)."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _an_object(cls, data: Any) -> Any:
        # ninja's Schema validates the body twice: as sent (checked here), then
        # wrapped in its DjangoGetter
        if not isinstance(data, (dict, DjangoGetter)):
            fields = ", ".join(cls.model_fields)
            raise PydanticCustomError(
                NOT_AN_OBJECT,
                "the request body must be a JSON object (fields: {fields}), not {kind}",
                {"fields": fields, "kind": json_kind(data)},
            )
        return data


class PageQuery(Schema):
    page: int = Field(1, ge=1, le=MAX_PAGE, description="1-based page number")
    page_size: int = Field(50, ge=1, le=100, description="items per page (at most 100)")


class PageMeta(Schema):
    count: int = Field(description="items over all pages")
    page: int
    page_size: int


# --- games -------------------------------------------------------------------


class OptionOut(Schema):
    name: str
    default: Any = None
    help: str


class LadderLimitsOut(Schema):
    startup_ms: int
    move_ms: int
    bank_ms: int
    memory_mib: int


class GameOut(Schema):
    id: str
    name: str
    seat_counts: list[int]
    rules_version: str
    step_cap: int
    options: list[OptionOut]
    ladder_options: dict[str, Any] = Field(
        description="the options this ladder's matches are created with where they differ "
        "from the defaults; challenges start from them"
    )
    ladder_limits: LadderLimitsOut = Field(
        description="the time limits (ms) and memory (MiB) of this ladder's bots; "
        "`arena play --ladder-rules` plays with them"
    )
    notice: str = Field(
        description="shown wherever the game is shown (e.g. house values), for the ladder's options"
    )


def game_out(rules: GameRules) -> dict:
    game = rules.game
    return {
        "id": game.id,
        "name": game.name,
        "seat_counts": list(game.seat_counts),
        "rules_version": game.rules_version,
        "step_cap": game.step_cap,
        "options": [
            {"name": name, "default": spec.default, "help": spec.help}
            for name, spec in game.options.items()
        ],
        "ladder_options": rules.options,
        "ladder_limits": {
            "startup_ms": settings.STARTUP_MS,
            "move_ms": settings.MOVE_MS,
            "bank_ms": settings.BANK_MS,
            "memory_mib": settings.BOT_MEMORY_MIB,
        },
        "notice": rules.notice,
    }


# --- bots and ratings ----------------------------------------------------------


class BotRef(Schema):
    id: int
    name: str
    owner: str


class RatingOut(Schema):
    fitted: float | None = Field(description="leaderboard Elo (batch fit)")
    fitted_low: float | None = Field(description="95% interval, low end")
    fitted_high: float | None = Field(description="95% interval, high end")
    provisional: bool
    rank: int | None
    elo: float = Field(description="incremental Elo, moves after every rated match")
    games: int
    wins: int
    win_rate: float | None


class LeaderboardRow(RatingOut):
    bot: BotRef
    last_played_at: datetime | None
    withdrawn: bool = Field(description="true: its owner took it off the ladder")
    paused_reason: str = Field(description="why the ladder stopped scheduling it; empty if not")


class LeaderboardPage(PageMeta):
    game: str
    fitted_at: datetime | None
    results: list[LeaderboardRow]


class VersionRef(Schema):
    id: int
    number: int


class BotOut(Schema):
    id: int
    game: str
    name: str
    description: str
    owner: str
    enabled: bool = Field(description="false: the site's staff disabled it")
    withdrawn: bool = Field(
        description="true: its owner took it off the ladder (PATCH /api/bots/{id})"
    )
    paused_reason: str
    builtin: bool
    created_at: datetime
    last_played_at: datetime | None
    active_version: VersionRef | None
    rating: RatingOut | None


class BotPage(PageMeta):
    results: list[BotOut]


#: the registered games' ids, so the schema lists them
GameId = Literal[tuple(g.id for g in all_games())]  # type: ignore[valid-type]


class BotIn(BodyIn):
    game: GameId = Field(description="a game id from GET /api/games")
    name: str = Field(
        description="letters, digits, - and _, starting with a letter or digit; unique within "
        "the game up to look-alikes: capitals, and _ as -, 0 as o, 1 and i as l, rn as m, "
        "vv as w, cl as d (409 names the bot that is there)",
        min_length=1,
        max_length=40,
        pattern=BOT_NAME,
    )
    description: str = Field("", max_length=300, pattern=PLAIN_TEXT)


class BotPatch(BodyIn):
    # strict: lax parsing read "yes", "on" and 1 as true
    withdrawn: StrictBool = Field(
        description="true takes the bot off the ladder (no new ladder matches; the ones "
        "already drawn for it still play); false puts it back. Ratings, history and "
        "challenges are untouched"
    )


class VersionOut(Schema):
    id: int
    bot: int
    number: int
    status: Literal["pending", "ready", "rejected"]
    reject_reason: str
    original_name: str
    sha256: str | None = Field(description="of the uploaded file; owner/staff")
    size_bytes: int
    created_at: datetime
    decided_at: datetime | None
    stderr_tail: str | None = Field(description="the bot's stderr in validation; owner/staff")
    source_url: str | None = Field(description="download of the uploaded file; owner/staff")


class VersionPage(PageMeta):
    bot: int
    results: list[VersionOut]


class RatingPoint(Schema):
    seq: int
    match: int
    version: int
    elo_before: float
    elo_after: float
    fitted: float | None
    fitted_low: float | None
    fitted_high: float | None
    created_at: datetime


class RatingHistoryPage(PageMeta):
    bot: int
    results: list[RatingPoint]


def rating_out(rating: Rating | None) -> dict | None:
    if rating is None:
        return None
    return {
        "fitted": rating.fitted,
        "fitted_low": rating.fitted_low,
        "fitted_high": rating.fitted_high,
        "provisional": rating.provisional,
        "rank": rating.fitted_rank,
        "elo": rating.elo,
        "games": rating.elo_games,
        "wins": rating.wins,
        "win_rate": rating.wins / rating.elo_games if rating.elo_games else None,
    }


def leaderboard_row(bot: Bot) -> dict:
    """A bot of ladder.pages.leaderboard_queryset as the leaderboard lists it
    (the JSON and the CSV)."""
    return {
        **rating_out(bot.rating),
        "bot": bot_ref(bot),
        "last_played_at": bot.last_played_at,
        "withdrawn": bot.withdrawn,
        "paused_reason": bot.paused_reason,
    }


def bot_ref(bot: Bot) -> dict:
    return {"id": bot.pk, "name": bot.name, "owner": bot.owner.username}


def bot_out(bot: Bot) -> dict:
    version = bot.active_version
    return {
        **bot_ref(bot),
        "game": bot.game,
        "description": bot.description,
        "enabled": bot.enabled,
        "withdrawn": bot.withdrawn,
        "paused_reason": bot.paused_reason,
        "builtin": bot.is_builtin,
        "created_at": bot.created_at,
        "last_played_at": bot.last_played_at,
        "active_version": {"id": version.pk, "number": version.number} if version else None,
        "rating": rating_out(getattr(bot, "rating", None)),
    }


def version_out(version: BotVersion, viewer) -> dict:
    private = sees_private(viewer, version.bot)
    return {
        "id": version.pk,
        "bot": version.bot_id,
        "number": version.number,
        "status": version.status,
        "reject_reason": version.reject_reason,
        "original_name": version.original_name,
        "sha256": version.sha256 if private else None,
        "size_bytes": version.size_bytes,
        "created_at": version.created_at,
        "decided_at": version.decided_at,
        "stderr_tail": version.stderr_tail if private else None,
        "source_url": reverse("api:version_source", args=[version.pk]) if private else None,
    }


# --- matches -------------------------------------------------------------------

MatchStatus = Literal["queued", "running", "finished", "errored", "cancelled"]
MatchKind = Literal["ladder", "validation", "challenge", "tournament"]


class SeatOut(Schema):
    seat: int
    bot: BotRef
    version: VersionRef
    rank: int | None
    score: float | None
    fault: str = Field(description="empty, or why the seat forfeited (timeout, crash, ...)")
    fault_detail: str
    think_ms: int | None
    elo_before: float | None
    elo_change: float | None
    stderr_tail: str | None = Field(description="the bot's stderr tail; owner/staff")


class MatchOut(Schema):
    id: int
    game: str
    kind: MatchKind
    status: MatchStatus
    rated: bool
    tournament: int | None = Field(
        description="the tournament it belongs to (GET /api/tournaments/{id}); null otherwise"
    )
    seat_count: int
    rules_version: str
    options: dict[str, Any]
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    reason: str
    steps: int
    first_mover: int | None = Field(
        description="the seat that made the first move (Splendor Duel's seed draws it), set "
        "with the result; null before, and in games that open with choices made at once"
    )
    replay_url: str | None
    seats: list[SeatOut]


class SeatDetail(SeatOut):
    played_as: str | None = Field(
        description="the bot's name when the match was played, where it differs from "
        "`bot.name` (the bot was renamed since); null otherwise"
    )


class MatchDetail(MatchOut):
    seats: list[SeatDetail]
    seed: int | None = Field(description="the deal's seed, once the match is over")
    requested_by: str | None
    error: str | None = Field(description="the last platform fault; staff only")


class MatchPage(PageMeta):
    count: int = Field(
        description="matches the filters select, whatever the cursor, counted only so far "
        "past the start of this page (10,000 on a standard server): a lower bound when "
        "`count_is_exact` is false"
    )
    count_is_exact: bool = Field(
        description="false: more matches than `count` follow (counting stopped there)"
    )
    next: int | None = Field(
        description="`before` for the matches after these (null: none follow); "
        "walk the whole list with it instead of deep pages"
    )
    results: list[MatchOut]


#: strict: `true`, `"12"` and `12.0` are no ids (lax parsing read `true` as bot 1)
BotId = Annotated[StrictInt, Field(ge=1, le=MAX_ID)]


class ChallengeIn(BodyIn):
    bot: BotId = Field(description="your bot; it takes seat 0")
    opponents: list[BotId] = Field(
        description="the other bots, in seat order 1, 2, ...", min_length=1, max_length=8
    )
    options: dict[str, Any] = Field(
        default_factory=dict,
        description=f"game options; at most {MAX_OPTIONS_BYTES:,} bytes as compact JSON",
    )

    @field_validator("options")
    @classmethod
    def _bounded(cls, options: dict[str, Any]) -> dict[str, Any]:
        size = options_bytes(options)
        if size > MAX_OPTIONS_BYTES:
            raise PydanticCustomError(
                "options_too_large",
                "the options are {size} bytes as JSON; the limit is {limit} bytes",
                {"size": f"{size:,}", "limit": f"{MAX_OPTIONS_BYTES:,}"},
            )
        return options


def seat_out(seat: MatchSeat, viewer) -> dict:
    bot = seat.version.bot
    return {
        "seat": seat.seat,
        "bot": bot_ref(bot),
        "version": {"id": seat.version_id, "number": seat.version.number},
        "rank": seat.rank,
        "score": seat.score,
        "fault": seat.fault,
        "fault_detail": seat.fault_detail,
        "think_ms": seat.think_ms,
        "elo_before": seat.elo_before,
        "elo_change": seat.elo_change,
        "stderr_tail": seat.stderr_tail if sees_private(viewer, bot) else None,
    }


def match_out(match: Match, viewer, detail: bool = False) -> dict:
    out = {
        "id": match.pk,
        "game": match.game,
        "kind": match.kind,
        "status": match.status,
        "rated": match.rated,
        "tournament": match.tournament_id,
        "seat_count": match.seat_count,
        "rules_version": match.rules_version,
        "options": match.options,
        "created_at": match.created_at,
        "started_at": match.started_at,
        "finished_at": match.finished_at,
        "reason": match.reason,
        "steps": match.steps,
        "first_mover": match.first_mover,
        "replay_url": reverse("api:match_replay", args=[match.pk]) if match.replay else None,
        "seats": [seat_out(s, viewer) for s in match.seats.all()],
    }
    if detail:
        # one file read: what a renamed bot was called then (the list leaves it out)
        then = names_played_as(match, match.seats.all())
        for seat in out["seats"]:
            seat["played_as"] = then.get(seat["seat"])
        staff = bool(viewer and viewer.is_authenticated and viewer.is_staff)
        # Before the end the seed would reveal hidden cards to anyone watching.
        out["seed"] = match.seed if match.is_done else None
        out["requested_by"] = match.requested_by.username if match.requested_by else None
        out["error"] = match.error if staff else None
    return out
