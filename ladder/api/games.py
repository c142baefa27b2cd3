"""Games and their leaderboards."""

from __future__ import annotations

from django.db.models import F
from django.http import HttpRequest
from ninja import Query, Router

from arena import OptionError, get_game
from ladder.api.auth import PUBLIC, PUBLIC_OPENAPI
from ladder.api.errors import ApiError, errors
from ladder.api.pages import paginate
from ladder.api.schemas import (
    GameOut,
    LeaderboardPage,
    PageQuery,
    bot_ref,
    game_out,
    rating_out,
)
from ladder.game_options import ladder_rules, ladder_rules_of
from ladder.models import Bot, GameFit, Rating
from ladder.pages import ON_LEADERBOARD

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


@router.get(
    "/games/{game_id}/leaderboard",
    response={200: LeaderboardPage, **errors(404)},
    openapi_extra=PUBLIC_OPENAPI,
    url_name="leaderboard",
)
def leaderboard(request: HttpRequest, game_id: str, query: Query[PageQuery]):
    """Enabled bots by leaderboard rank (fitted Elo); bots without a fit yet come last."""
    game = known_game(game_id)
    ratings = (
        Rating.objects.filter(
            bot__in=Bot.objects.filter(ON_LEADERBOARD, game=game.id, enabled=True)
        )
        .select_related("bot__owner")
        .order_by(F("fitted_rank").asc(nulls_last=True), "-elo", "bot__name")
    )
    fit = GameFit.objects.filter(game=game.id).first()

    def row(rating: Rating) -> dict:
        return {
            **rating_out(rating),
            "bot": bot_ref(rating.bot),
            "last_played_at": rating.bot.last_played_at,
        }

    return {
        "game": game.id,
        "fitted_at": fit.fitted_at if fit else None,
        **paginate(ratings, query, row),
    }
