"""The code of the bot-author docs, run as it is written there.

Each example is read from its Markdown file (the first ```python block after
a heading), so changing the engine API the docs promise, or the docs'
examples, fails here. docs/bots.md "Using the engine in your bot" and
docs/games/edel-stein-reich.md "Card facts in a bot" and "Search in a bot".
"""

from __future__ import annotations

import importlib.util
import json
import random
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import pytest

import arena.sdk
from arena import BotSpec, MatchRequest, builtin_bot_dir, get_game, play_match
from arena.engine import IllegalAction, MalformedAction, OptionError, SnapshotError
from arena.protocol import start_message
from arena.sdk import Match
from tests.arena.bots import BASE

DOCS = Path(__file__).resolve().parents[2] / "docs"


def python_block(doc: str, heading: str) -> str:
    """The first ```python block after the heading `heading` of docs/`doc`."""
    lines = (DOCS / doc).read_text(encoding="utf-8").splitlines()
    at = next(
        i for i, line in enumerate(lines) if line.startswith("#") and line.lstrip("# ") == heading
    )
    begin = next(i for i in range(at + 1, len(lines)) if lines[i].strip() == "```python")
    end = next(i for i in range(begin + 1, len(lines)) if lines[i].strip() == "```")
    return "\n".join(lines[begin + 1 : end]) + "\n"


def sdk_match(game_id: str, seat: int, seats: int, options: dict | None = None) -> Match:
    """The SDK's Match for the start message the referee would send."""
    game = get_game(game_id)
    start = start_message(
        game=game.id,
        rules_version=game.rules_version,
        seat=seat,
        seats=seats,
        options=game.validate_options(options),
        time={"startup_ms": 10000, "move_ms": 1000, "bank_ms": 10000},
    )
    return Match(json.loads(json.dumps(start)))  # as the bot reads it: plain JSON


# -- docs/bots.md: the supported engine API ------------------------------------


def test_the_engine_api_example_runs(capsys) -> None:
    exec(python_block("bots.md", "The supported API"), {})
    printed = capsys.readouterr().out  # "(1, 2) seat 0 reached 20 prestige points"
    assert printed.startswith(("(1, 2) ", "(2, 1) ", "(1, 1) ")), printed


@pytest.mark.parametrize("game_id, seats", [("splendor-duel", 2), ("edel-stein-reich", 4)])
def test_the_engine_contract_is_what_the_docs_list(game_id: str, seats: int) -> None:
    game = get_game(game_id)
    assert seats in game.seat_counts and game.id == game_id and game.rules_version
    with pytest.raises(TypeError):
        game.new(seed=1)  # the guess QA made: seats are required
    with pytest.raises(OptionError):
        get_game("chess")
    with pytest.raises(OptionError):
        game.new(seats, 1, {"no_such_option": 1})
    state = game.new(seats, 7)
    assert state == game.new(seats=seats, seed=7, options=None)
    assert state == game.new(seats, 7, game.validate_options({}))
    assert game.restore(state.snapshot()) == state
    with pytest.raises(SnapshotError):
        game.restore({**state.snapshot(), "game": "chess"})
    rng = random.Random(3)
    while not state.is_over():
        assert state.outcome() is None
        to_act = state.to_act()
        assert to_act == sorted(to_act) and to_act
        for seat in range(seats):
            if seat not in to_act:
                assert state.legal_actions(seat) == []
        seat = to_act[0]
        legal = state.legal_actions(seat)
        assert legal == sorted(set(legal))
        before = state.snapshot()
        with pytest.raises(MalformedAction):
            state.apply(seat, "no such action")
        if len(to_act) == 1:
            with pytest.raises(IllegalAction):
                state.apply((seat + 1) % seats, legal[0])
        assert state.snapshot() == before  # a rejected action changes nothing
        trial = state.clone()
        trial.apply(seat, rng.choice(legal))
        assert state.snapshot() == before  # the clone is independent
        assert trial.step == state.step + 1
        state = trial
    assert state.to_act() == [] and state.seat_count == seats
    outcome = state.outcome()
    assert len(outcome.ranks) == len(outcome.scores) == seats and min(outcome.ranks) == 1
    assert state.observation(0)["outcome"] == outcome.to_json()
    assert state.spectator_view()["seat"] is None and state.render()


# -- docs/bots.md: the one-move-ahead Splendor Duel bot -------------------------


class CheckedGame:
    """The game, with every state determinize returns checked against its observation."""

    def __init__(self, game) -> None:
        self.game = game
        self.calls = 0

    def determinize(self, observation, seed, options):
        state = self.game.determinize(observation, seed, options)
        assert state.observation(observation["seat"]) == observation
        assert state.legal_actions(observation["seat"]) == self.legal
        self.calls += 1
        return state


def example_bot_source() -> str:
    return python_block("bots.md", "Example: one move ahead in Splendor Duel")


def load_bot(source: str, name: str) -> ModuleType:
    """A documented bot's `main.py`, imported as module `name` (the SDK as
    the sandbox provides it)."""
    sys.modules.setdefault("gemarena_sdk", arena.sdk)
    folder = Path(tempfile.mkdtemp(prefix="doc-example-", dir=BASE))
    path = folder / "main.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_bots_state_shows_exactly_its_observation() -> None:
    """The state of every decision, from GAME.determinize, shows the bot
    exactly its observation and its legal actions, opponent's blind
    reserves included (drawn from the unseen cards)."""
    bot = load_bot(example_bot_source(), "doc_example_bot")
    game = get_game("splendor-duel")
    bot.GAME = checked = CheckedGame(game)
    rng = random.Random(5)
    blind_seen = decisions = 0
    for seed in range(6):
        bot.on_start(sdk_match("splendor-duel", 0, 2))
        state = game.new(2, seed)
        while not state.is_over():
            seat = state.to_act()[0]
            obs = json.loads(json.dumps(state.observation(seat)))
            blind_seen += sum(r["card"] is None for p in obs["players"] for r in p["reserved"])
            legal = state.legal_actions(seat)
            if seat == 0:
                checked.legal = legal
                action = bot.decide(obs, legal)
                assert action in legal
                decisions += 1
            else:  # a random opponent that likes blind reserves
                blind = [a for a in legal if "deck" in a]
                action = rng.choice(blind or legal)
            state.apply(seat, action)
    assert checked.calls == decisions > 100
    assert blind_seen > 0  # the sampling of hidden reserves was exercised


def test_the_example_bot_plays_a_match_in_the_sandbox() -> None:
    folder = Path(tempfile.mkdtemp(prefix="doc-example-", dir=BASE))
    folder.chmod(0o755)
    (folder / "main.py").write_text(example_bot_source(), encoding="utf-8")
    (folder / "main.py").chmod(0o644)
    bots = [
        BotSpec("example", folder),
        BotSpec("random", builtin_bot_dir("splendor-duel", "random")),
    ]
    result = play_match(MatchRequest("splendor-duel", bots, seed=2, sandbox="process"))
    assert result.faults == [None, None], result.stderr_tails
    assert result.outcome is not None


# -- docs/games/edel-stein-reich.md: card facts and the phase payout ------------


def esr_snippet(match: Match) -> dict:
    namespace: dict = {"match": match}
    exec(python_block("games/edel-stein-reich.md", "Card facts in a bot"), namespace)
    return namespace


def operator_document() -> dict:
    """The house values with other numbers, as a ladder's `components` option."""
    from arena.games.edel_stein_reich.loader import DEFAULT_COMPONENTS

    doc = json.loads(json.dumps(DEFAULT_COMPONENTS.source))
    doc["house_values"] = False
    doc["scoring_value"] = {"red": 12, "yellow": 9, "green": 5, "blue": 3}
    doc["certificate_awards"] = [8, 5, 1]
    doc["majority_tie_return"] = 1
    return doc


@pytest.mark.parametrize("options", [{}, {"certificate_ties": "full"}, {"components": "operator"}])
def test_the_esr_snippet_matches_the_engines_scoring(options: dict) -> None:
    from arena.games.edel_stein_reich import scoring  # the engine's internals, to compare
    from arena.games.edel_stein_reich.loader import DEFAULT_COMPONENTS

    if options.get("components") == "operator":
        options = {"components": operator_document()}
    seats = 4
    match = sdk_match("edel-stein-reich", 0, seats, options)
    ns = esr_snippet(match)
    comp = ns["comp"]
    if "components" in options:
        assert comp is not DEFAULT_COMPONENTS and comp.scoring_value == (12, 9, 5, 3)
    else:
        assert comp is DEFAULT_COMPONENTS
    assert set(ns["kinds"]) == {card.id for card in comp.event_kinds}
    ties = match.options["certificate_ties"]
    game = get_game("edel-stein-reich")
    rng = random.Random(11)
    for seed in range(3):
        state = game.new(seats, seed, match.options)
        while not state.is_over():
            seat = state.to_act()[0]
            obs = json.loads(json.dumps(state.observation(seat)))
            unseen = ns["unseen_events"](obs, comp)
            assert sum(unseen.values()) == obs["event_deck_size"]
            trial = state.clone()
            before = trial.money[:]
            scoring.score_phase(trial)
            paid = [trial.money[s] - before[s] for s in range(seats)]
            assert ns["phase_payout"](obs, comp, ties) == paid
            state.apply(seat, rng.choice(state.legal_actions(seat)))


def test_the_sdk_hands_the_components_option_as_the_docs_say() -> None:
    """`null` for the house values, else the whole document (JSON object)."""
    assert sdk_match("edel-stein-reich", 0, 3).options["components"] is None
    doc = operator_document()
    assert sdk_match("edel-stein-reich", 0, 3, {"components": doc}).options["components"] == doc


# -- docs/games/edel-stein-reich.md: Monte Carlo on determinized states ---------


def esr_search_source(think_s: float | None = None) -> str:
    """The example of "Search in a bot"; `think_s` replaces its time per decision."""
    source = python_block("games/edel-stein-reich.md", "Search in a bot")
    if think_s is not None:
        line = "THINK_S = 0.2  # per decision"
        assert line in source, "the example's time per decision moved"
        source = source.replace(line, f"THINK_S = {think_s}  # per decision")
    return source


@pytest.mark.parametrize("seats, options", [(3, {"money_visible": False}), (4, {})])
def test_the_esr_search_example_plays_from_its_own_observation(seats: int, options) -> None:
    bot = load_bot(esr_search_source(), "doc_esr_search_bot")
    bot.THINK_S = 0  # one pass over the legal actions per decision
    game = get_game("edel-stein-reich")
    bot.GAME = checked = CheckedGame(game)
    bot.rng.seed(3)
    bot.on_start(sdk_match("edel-stein-reich", 0, seats, options))
    state = game.new(seats, 5, options)
    rng = random.Random(6)
    decisions = 0
    while not state.is_over():
        seat = rng.choice(state.to_act())
        legal = state.legal_actions(seat)
        if seat == 0:
            obs = json.loads(json.dumps(state.observation(0)))
            checked.legal = legal
            action = bot.decide(obs, legal)
            assert action in legal
            decisions += 1
        else:
            action = rng.choice(legal)
        state.apply(seat, action)
    assert checked.calls == decisions > 50


def test_the_esr_search_example_plays_a_match_in_the_sandbox() -> None:
    folder = Path(tempfile.mkdtemp(prefix="doc-example-", dir=BASE))
    folder.chmod(0o755)
    (folder / "main.py").write_text(esr_search_source(think_s=0.0), encoding="utf-8")
    (folder / "main.py").chmod(0o644)
    bots = [BotSpec("example", folder)] + [
        BotSpec(f"random{i}", builtin_bot_dir("edel-stein-reich", "random")) for i in (1, 2)
    ]
    request = MatchRequest("edel-stein-reich", bots, seed=4, sandbox="process")
    result = play_match(request)
    assert result.faults == [None, None, None], result.stderr_tails
    assert result.outcome is not None
