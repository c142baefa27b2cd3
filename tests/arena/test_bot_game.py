"""Which game a bot's main.py names, read from its source: the check that
`arena upload` and the server's upload chokepoint share (arena/bot_game.py)."""

from __future__ import annotations

import pytest

from arena import all_games
from arena.bot_game import games_named_in, wrong_game_refusal
from arena.runner_bots import starter_files

SD, ESR = "splendor-duel", "edel-stein-reich"

NAMED = [
    ("from gemarena_sdk import run\nrun(decide, game='splendor-duel')\n", [(SD, 2)]),
    ("from gemarena_sdk import run as go\n\ngo(decide, game='splendor-duel')\n", [(SD, 3)]),
    ("import gemarena_sdk\ngemarena_sdk.run(decide, game='splendor-duel')\n", [(SD, 2)]),
    ("import gemarena_sdk as sdk\nsdk.run(decide, game='splendor-duel')\n", [(SD, 2)]),
    ("from arena.sdk import run\nrun(decide, game='splendor-duel')\n", [(SD, 2)]),
    ("import arena.sdk\narena.sdk.run(decide, game='splendor-duel')\n", [(SD, 2)]),
    ("from arena import sdk\nsdk.run(decide, game='splendor-duel')\n", [(SD, 2)]),
    # inside the usual `if __name__ == "__main__":`, with other keywords
    (
        "from gemarena_sdk import run\nif __name__ == '__main__':\n"
        "    run(decide, on_start=setup, game='splendor_duel')\n",
        [("splendor_duel", 3)],
    ),
]

#: names no game, or not literally: passes whatever the bot's game
UNKNOWN = [
    "from gemarena_sdk import run\nrun(decide)\n",
    "from gemarena_sdk import run\nrun(decide, game=None)\n",
    "print('no sdk at all')\n",
    # not the SDK's run
    "def run(decide, game=None):\n    pass\nrun(decide, game='splendor-duel')\n",
    "from somewhere import run\nrun(decide, game='splendor-duel')\n",
    # not literally: only running it would tell
    "from gemarena_sdk import run\nGAME = 'splendor-duel'\nrun(decide, game=GAME)\n",
    "from gemarena_sdk import run\nrun(decide, game=f'splendor-{KIND}')\n",
    "from gemarena_sdk import run\nrun(decide, **{'game': 'splendor-duel'})\n",
    "from gemarena_sdk import run\nrun(decide, game='splendor-duel')\nrun(decide, game=g)\n",
    # does not parse: the upload's other checks say why
    "from gemarena_sdk import run\nrun(decide, game='splendor-duel'\n",
]


@pytest.mark.parametrize("source, named", NAMED)
def test_a_literal_game_is_found_with_its_line(source: str, named) -> None:
    assert games_named_in(source) == named
    refusal = wrong_game_refusal(named, ESR)
    written_for, line = named[0]
    assert refusal == (
        f"main.py is written for {written_for} (run(..., game={written_for!r}) on line "
        f"{line}), but this is a bot for {ESR}: the bot would refuse every match; upload "
        f"it as a bot for {written_for}, or change game= if it really plays {ESR}"
    )


@pytest.mark.parametrize("source", UNKNOWN)
def test_no_literal_game_passes(source: str) -> None:
    for game in (SD, ESR):
        assert wrong_game_refusal(games_named_in(source), game) == ""


def test_a_bot_naming_its_own_game_passes() -> None:
    named = games_named_in("from gemarena_sdk import run\nrun(decide, game='splendor-duel')\n")
    assert wrong_game_refusal(named, SD) == ""
    both = games_named_in(
        "from gemarena_sdk import run\nrun(a, game='edel-stein-reich')\nrun(b, game='splendor-duel')\n"
    )
    assert both == [(ESR, 2), (SD, 3)]
    assert wrong_game_refusal(both, SD) == "" and wrong_game_refusal(both, ESR) == ""


def test_the_message_calls_the_file_as_the_author_named_it() -> None:
    named = games_named_in("from gemarena_sdk import run\nrun(decide, game='splendor-duel')\n")
    assert wrong_game_refusal(named, ESR, "greedy.py").startswith("greedy.py is written for")


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.id)
def test_the_starter_kit_names_its_own_game(game) -> None:
    named = games_named_in(starter_files(game)["main.py"])
    assert [name for name, _ in named] == [game.id]
    others = [g.id for g in all_games() if g.id != game.id]
    assert all(wrong_game_refusal(named, other) for other in others)
