"""Pages say which rules are played: the house-values notice only where house
values are played, and the options the ladder (or a match) plays that differ
from the defaults."""

from __future__ import annotations

import html

import pytest
from django.test import Client

from arena import get_game
from ladder.matches import create_match
from tests.ladder.test_game_options import ESR, printed_components, set_ladder_options
from tests.web.conftest import make_bot

pytestmark = pytest.mark.django_db

HOUSE = get_game(ESR).notice[:40]
OPERATOR = "Plays with custom component data"
PLAYS_WITH = "This ladder plays with: components = custom component data, untaken_event = keep."


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return html.unescape(response.content.decode())


@pytest.fixture
def operator_rules() -> None:
    set_ladder_options({ESR: {"untaken_event": "keep", "components": printed_components()}})


def test_leaderboard_says_what_the_ladder_plays(client: Client, operator_rules) -> None:
    text = page(client, f"/games/{ESR}/")
    assert OPERATOR in text and HOUSE not in text
    assert PLAYS_WITH in text
    assert "scoring_value" not in text  # the document is named, not printed
    duel = page(client, "/games/splendor-duel/")
    assert "This ladder plays with" not in duel and OPERATOR not in duel


def test_default_rules_keep_the_house_values_notice_and_list_nothing(client: Client) -> None:
    text = page(client, f"/games/{ESR}/")
    assert HOUSE in text and OPERATOR not in text
    assert "plays with:" not in text
    set_ladder_options({ESR: {"priority_tiebreak": "seat"}})  # house rules, house values
    text = page(client, f"/games/{ESR}/")
    assert HOUSE in text and "This ladder plays with: priority_tiebreak = seat." in text


def test_home_bot_and_docs_pages_follow_the_ladder_options(
    client: Client, alice, operator_rules
) -> None:
    bot = make_bot(alice, "baron", game=ESR)
    for url in ("/", f"/bots/{bot.pk}/", "/docs/faq/"):
        text = page(client, url)
        assert OPERATOR in text and HOUSE not in text, url
    # and they list the options, as docs/operations.md says (found by a QA operator)
    assert PLAYS_WITH in page(client, "/")
    assert PLAYS_WITH.replace("This ladder", "The ladder") in page(client, f"/bots/{bot.pk}/")
    faq = page(client, "/docs/faq/")
    assert "Which rules does Edel, Stein & Reich play with here?" in faq
    assert PLAYS_WITH in faq and "house values”?" not in faq
    assert PLAYS_WITH in page(client, f"/docs/games/{ESR}/")
    assert "This ladder plays with" not in page(client, "/docs/games/splendor-duel/")
    index = page(client, "/docs/")
    assert "; house values" not in index and "the options this ladder plays with" in index


def test_match_page_shows_the_rules_of_that_match(client: Client, alice, operator_rules) -> None:
    lineup = [make_bot(alice, f"m{i}", game=ESR).active_version for i in range(3)]
    before = create_match(ESR, lineup)  # made before the operator's change, say
    after = create_match(ESR, lineup, options={"components": printed_components()})
    text = page(client, f"/matches/{before.pk}/")
    assert HOUSE in text and OPERATOR not in text and "Played with" not in text
    text = page(client, f"/matches/{after.pk}/")
    assert OPERATOR in text and HOUSE not in text
    assert "Played with: components = custom component data." in text


def test_options_are_explained_in_the_games_words(client: Client, alice) -> None:
    """QA: "Played with: money_visible = false" gave the raw key only. The key
    stays (it is what `arena play -o` and the API take), and each option's
    meaning follows from the game's OptionSpec help."""
    lineup = [make_bot(alice, f"m{i}", game=ESR).active_version for i in range(3)]
    match = create_match(ESR, lineup, options={"money_visible": False})
    text = page(client, f"/matches/{match.pk}/")
    assert "Played with: money_visible = false." in text
    assert "<summary>What this option means</summary>" in text
    help_text = get_game(ESR).options["money_visible"].help
    assert f"<dt><code>money_visible = false</code></dt><dd>{help_text}</dd>" in text
    set_ladder_options({ESR: {"untaken_event": "keep", "priority_tiebreak": "seat"}})
    board = page(client, f"/games/{ESR}/")
    assert "<summary>What these options mean</summary>" in board
    for name in ("untaken_event", "priority_tiebreak"):
        assert get_game(ESR).options[name].help in board
