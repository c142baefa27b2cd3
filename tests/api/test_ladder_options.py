"""The API and the ladder's game options: `ladder_options` and the notice in
GET /api/games, challenges that start from the ladder's options."""

from __future__ import annotations

import pytest

from ladder.models import Match
from tests.api.conftest import ready_bot
from tests.ladder.test_game_options import ESR, printed_components, set_ladder_options

pytestmark = pytest.mark.django_db


def test_games_list_the_ladder_options_and_their_notice(client) -> None:
    default = {g["id"]: g for g in client.get("/api/games").json()}
    assert default[ESR]["ladder_options"] == {} and "house values" in default[ESR]["notice"]
    printed = printed_components()
    set_ladder_options({ESR: {"untaken_event": "keep", "components": printed}})
    games = {g["id"]: g for g in client.get("/api/games").json()}
    esr = games[ESR]
    # the whole document: bots see it in their start message anyway, and
    # authors need it to play the same rules locally
    assert esr["ladder_options"] == {"components": printed, "untaken_event": "keep"}
    assert esr["notice"].startswith("Plays with custom component data")
    assert games["splendor-duel"]["ladder_options"] == {}
    assert client.get(f"/api/games/{ESR}").json() == esr


def challenge(client, bot: int, opponents: list[int], options: dict) -> dict:
    body = {"bot": bot, "opponents": opponents, "options": options}
    response = client.post("/api/challenges", body, "application/json")
    assert response.status_code == 201, response.content
    return Match.objects.get(pk=response.json()["id"]).options


def test_a_challenge_starts_from_the_ladder_options(as_alice, alice, bob) -> None:
    red = ready_bot(alice, "red", game=ESR)
    others = [ready_bot(bob, name, game=ESR).pk for name in ("green", "blue")]
    set_ladder_options(
        {
            ESR: {
                "untaken_event": "keep",
                "priority_tiebreak": "seat",
                "components": printed_components(),
            }
        }
    )
    options = challenge(
        as_alice, red.pk, others, {"priority_tiebreak": "less_money", "money_visible": False}
    )
    assert options["untaken_event"] == "keep"  # the ladder's
    assert options["priority_tiebreak"] == "less_money"  # the request's, replacing the ladder's
    assert options["money_visible"] is False  # the request's
    assert options["components"]["scoring_value"]["red"] == 12
    # null goes back to the game's own default (here: the house values)
    assert challenge(as_alice, red.pk, others, {"components": None})["components"] is None
