"""The built-in example bots, in-process: names, legal play, the search bot's
use of the engine's determinization and of a winning move. Their strength is measured
with `arena tournament` (docs/bots.md), not here."""

from __future__ import annotations

import importlib.util
import random
import sys
from types import ModuleType

import arena.sdk
from arena import builtin_bot_dir, get_game
from arena.runner_bots import bots_root, builtin_names


def load_bot(game: str, name: str) -> ModuleType:
    """A built-in bot's main.py as a module (its `run` only runs as __main__)."""
    sys.modules.setdefault("gemarena_sdk", arena.sdk)
    path = builtin_bot_dir(game, name) / "main.py"
    spec = importlib.util.spec_from_file_location(f"bot_{game}_{name}".replace("-", "_"), path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def action_of(decision: str | tuple[str, str]) -> str:
    return decision[0] if isinstance(decision, tuple) else decision


def test_builtin_names_resolve_per_game() -> None:
    root = bots_root()
    assert builtin_names("splendor-duel") == ["greedy", "random", "search"]
    assert builtin_names("edel-stein-reich") == ["greedy", "random"]
    assert builtin_bot_dir("splendor-duel", "search") == root / "splendor_duel" / "search"
    assert builtin_bot_dir("edel-stein-reich", "greedy") == root / "edel_stein_reich" / "greedy"


def test_esr_greedy_plays_legal_actions_and_ranks_first_against_random() -> None:
    bot = load_bot("edel-stein-reich", "greedy")
    game = get_game("edel-stein-reich")
    sole_firsts = 0
    for g in range(4):
        rng = random.Random(g)
        state = game.new(4, 100 + g, {})
        me = g % 4
        while not state.is_over():
            for seat in state.to_act():
                legal = state.legal_actions(seat)
                if seat == me:
                    action = action_of(bot.decide(state.observation(seat), legal))
                    assert action in legal
                else:
                    action = rng.choice(legal)
                state.apply(seat, action)
                break
        ranks = state.outcome().ranks
        sole_firsts += ranks[me] == 1 and ranks.count(1) == 1
    # fixed seeds and a deterministic bot: this is a regression check, the
    # measured rate (200 games) is in docs/bots.md
    assert sole_firsts >= 3


def test_esr_greedy_counts_certificates_by_the_matchs_tie_rule() -> None:
    """Two seats holding one certificate each: 7 each when ties split the
    prizes 10 + 4, 10 each with certificate_ties = full."""
    from types import SimpleNamespace

    bot = load_bot("edel-stein-reich", "greedy")
    state = get_game("edel-stein-reich").new(3, 5, {})
    obs = state.observation(0)
    for player in obs["players"]:
        player["held_events"] = []
        player["money"] = 0
        player["gems"] = dict.fromkeys(player["gems"], 0)  # no majorities
    obs["players"][0]["held_events"] = obs["players"][1]["held_events"] = ["certificate"]
    for ties, prize in (("split", 7), ("full", 10)):
        bot.on_start(SimpleNamespace(options={"certificate_ties": ties}))
        assert bot.Pos(obs).estimate() == [prize, prize, 0], ties


def _positions(moves: int, seed: int):
    """Positions of a random Splendor Duel game, every `moves` steps."""
    game = get_game("splendor-duel")
    state = game.new(2, seed, {})
    rng = random.Random(seed)
    while not state.is_over():
        seat = state.to_act()[0]
        if state.step % moves == 0:
            yield state, seat
        legal = state.legal_actions(seat)
        # reserve blind often, so that hidden reserved cards show up
        blind = [a for a in legal if a.startswith("reserve") and "deck" in a]
        state.apply(seat, blind[0] if blind and rng.random() < 0.3 else rng.choice(legal))


def test_search_searches_the_engines_determinization() -> None:
    """Each decision searches a state from `GAME.determinize` (no copy of its
    own): it shows the seat exactly its observation and the same legal actions."""
    bot = load_bot("splendor-duel", "search")
    bot.budget_s = 0.005  # the states are checked here, not the search
    game = bot.GAME
    searched = []

    class Checked:
        def determinize(self, observation, seed, options):
            state = game.determinize(observation, seed, options)
            searched.append(state)
            return state

    bot.GAME = Checked()
    hidden_seen = decisions = 0
    for state, seat in _positions(7, seed=3):
        obs = state.observation(seat)
        other = obs["players"][1 - seat]
        hidden_seen += any(r["card"] is None for r in other["reserved"])
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            continue  # played without a search
        assert action_of(bot.decide(obs, legal)) in legal
        decisions += 1
        assert len(searched) == decisions
        assert searched[-1].observation(seat) == obs
        assert searched[-1].legal_actions(seat) == legal
    assert hidden_seen, "no position with a hidden reserved card was tried"
    assert not hasattr(bot, "determinize")  # one determinization: the engine's


def test_search_plays_legal_actions_and_takes_a_win() -> None:
    bot = load_bot("splendor-duel", "search")
    wins_offered = 0
    for state, seat in _positions(1, seed=11):
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            continue
        winning = []
        for action in legal:
            after = state.clone()
            after.apply(seat, action)
            if after.is_over() and after.outcome().ranks[seat] == 1:
                winning.append(action)
        if not winning and state.step % 10:
            continue  # search only every 10th ordinary position: it is slow
        choice = action_of(bot.decide(state.observation(seat), legal))
        assert choice in legal
        if winning:
            wins_offered += 1
            assert choice in winning
    # the last action of the game wins it (a random game ends by a victory)
    assert wins_offered >= 1
