"""Games and their leaderboards."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import HttpRequest
from ninja import Query, Router

from arena import OptionError, get_game
from ladder.api.auth import PUBLIC, PUBLIC_OPENAPI
from ladder.api.errors import ApiError, binary_response, errors
from ladder.api.pages import paginate
from ladder.api.schemas import (
    GameOut,
    LeaderboardPage,
    PageQuery,
    game_out,
    leaderboard_row,
)
from ladder.csv_export import csv_response
from ladder.game_options import ladder_rules, ladder_rules_of
from ladder.models import Bot, GameFit
from ladder.pages import leaderboard_queryset

router = Router(tags=["games"], auth=PUBLIC)


def known_game(game_id: str):
    try:
        return get_game(game_id)
    except OptionError as exc:
        raise ApiError(404, str(exc)) from None


@router.get(
    "/games",
    response={200: list[GameOut], **errors()},
    openapi_extra=PUBLIC_OPENAPI,
    url_name="games",
)
def list_games(request: HttpRequest):
    """Every game: seat counts, rules version, options (with the ones this ladder
    plays) and the house-values notice."""
    return [game_out(rules) for rules in ladder_rules()]


@router.get(
    "/games/{game_id}",
    response={200: GameOut, **errors(404)},
    openapi_extra=PUBLIC_OPENAPI,
    url_name="game",
)
def game_detail(request: HttpRequest, game_id: str):
    return game_out(ladder_rules_of(known_game(game_id)))


def leaderboard_bots(game_id: str) -> QuerySet[Bot]:
    """The API's leaderboard: the page's query (the same order and numbers)
    without the disabled bots, which only the page lists (greyed)."""
    return leaderboard_queryset(known_game(game_id).id).filter(enabled=True)


@router.get(
    "/games/{game_id}/leaderboard",
    response={200: LeaderboardPage, **errors(404)},
    openapi_extra=PUBLIC_OPENAPI,
    url_name="leaderboard",
)
def leaderboard(request: HttpRequest, game_id: str, query: Query[PageQuery]):
    """Enabled bots by leaderboard rank (fitted Elo); bots without a fit yet come
    last, by incremental Elo."""
    bots = leaderboard_bots(game_id)
    fit = GameFit.objects.filter(game=game_id).first()
    return {
        "game": game_id,
        "fitted_at": fit.fitted_at if fit else None,
        **paginate(bots, query, leaderboard_row),
    }


#: the CSV's columns: the JSON row's fields, `bot` spelled out
LEADERBOARD_CSV = (
    "rank",
    "bot_id",
    "bot_name",
    "owner",
    "fitted",
    "fitted_low",
    "fitted_high",
    "provisional",
    "elo",
    "games",
    "wins",
    "win_rate",
    "last_played_at",
    "withdrawn",
    "paused_reason",
)


@router.get(
    "/games/{game_id}/leaderboard.csv",
    response=errors(404, 503),
    openapi_extra={
        **PUBLIC_OPENAPI,
        **binary_response("the whole leaderboard, one row per bot", "text/csv"),
    },
    url_name="leaderboard_csv",
)
def leaderboard_csv(request: HttpRequest, game_id: str):
    """The whole leaderboard as CSV: the rows of GET /games/{game_id}/leaderboard,
    in its order, unpaged."""
    bots = leaderboard_bots(game_id)

    def rows():
        for bot in bots.iterator(chunk_size=500):
            row = leaderboard_row(bot)
            ref = row.pop("bot")
            row.update(bot_id=ref["id"], bot_name=ref["name"], owner=ref["owner"])
            yield [row[name] for name in LEADERBOARD_CSV]

    return csv_response(f"{game_id}-leaderboard.csv", LEADERBOARD_CSV, rows())
