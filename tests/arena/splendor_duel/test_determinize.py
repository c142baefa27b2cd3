"""GAME.determinize: a full state from one seat's observation.

At every decision of seeded random games (opponents that like blind
reserves, so hidden cards are common), for both seats, the determinized state
must show that seat exactly its observation, list the same legal actions for
it, keep the invariants and play on to the end. With the real hidden parts put
back (deck orders, the opponent's blind reserves, the generator) it must be
the real state, snapshot for snapshot: nothing else is sampled or guessed.
"""

from __future__ import annotations

import copy
import json
from collections import Counter

import pytest

from arena.engine import OptionError, SnapshotError
from arena.games.splendor_duel import GAME, SplendorDuelState
from arena.games.splendor_duel.cards import CARD_IDS, LEVEL_CARDS
from arena.rng import Rng
from tests.arena.playout import poke


def as_json(obs: dict) -> dict:
    """The observation as a bot reads it."""
    return json.loads(json.dumps(obs))


def choose(st: SplendorDuelState, chooser: Rng) -> str:
    """A random legal action, a blind reserve half the time one is legal."""
    legal = st.legal_actions(st.to_act()[0])
    blind = [a for a in legal if "deck" in a]
    return chooser.choice(blind if blind and chooser.below(2) else legal)


def play_to_end(st: SplendorDuelState, chooser: Rng) -> SplendorDuelState:
    while not st.is_over():
        st.apply(st.to_act()[0], choose(st, chooser))
    return st


def visible_ids(obs: dict) -> set[str]:
    seen = {c for level in obs["pyramid"] for c in level if c is not None}
    for p in obs["players"]:
        seen.update(p["cards"])
        seen.update(r["card"] for r in p["reserved"] if r["card"] is not None)
    return seen


def hidden_cards(st: SplendorDuelState, seat: int) -> tuple:
    """What determinize samples for `seat`: the decks and the other seat's blind reserves."""
    other = 1 - seat
    return st.decks, tuple(c for c in st.reserved[other] if c in st.blind)


def with_real_hidden_parts(sampled: SplendorDuelState, real: SplendorDuelState):
    st = sampled.clone()
    st.decks, st.reserved, st.blind = real.decks, real.reserved, real.blind
    st.rng = real.rng.clone()
    st._legal = None
    return st


def check_seat(real: SplendorDuelState, seat: int, seed: int, options: dict) -> SplendorDuelState:
    obs = as_json(real.observation(seat))
    sampled = GAME.determinize(obs, seed, options)
    assert sampled.observation(seat) == obs
    assert sampled.legal_actions(seat) == real.legal_actions(seat), f"step {real.step}"
    assert sampled.to_act() == real.to_act()
    sampled.check_invariants()
    seen = visible_ids(obs)
    decks, blind = hidden_cards(sampled, seat)
    drawn = [CARD_IDS[c] for deck in decks for c in deck] + [CARD_IDS[c] for c in blind]
    assert not seen & set(drawn), "a sampled hidden card is a visible one"
    assert len(set(drawn)) == len(drawn)
    back = with_real_hidden_parts(sampled, real)
    assert back.snapshot() == real.snapshot(), (
        f"more than the hidden parts differ, step {real.step}"
    )
    return sampled


@pytest.mark.parametrize("game_seed", range(8))
def test_every_observation_of_a_random_game_determinizes(game_seed: int) -> None:
    options = {"first_seat": game_seed % 2} if game_seed % 3 == 0 else {}
    real = GAME.new(2, game_seed, options)
    chooser = Rng(game_seed + 100)
    count = hidden_reserves = 0
    while True:
        for seat in (0, 1):
            sampled = check_seat(real, seat, count, options)
            obs = real.observation(seat)
            hidden_reserves += any(r["card"] is None for p in obs["players"] for r in p["reserved"])
            if count % 25 == 0:
                play_to_end(sampled, Rng(count)).check_invariants()  # and it plays on
            count += 1
        if real.is_over():
            break
        real.apply(real.to_act()[0], choose(real, chooser))
    assert count > 100 and hidden_reserves > 0
    assert real.outcome() is not None


def test_with_the_real_hidden_parts_it_plays_exactly_like_the_real_game() -> None:
    real = GAME.new(2, 31)
    chooser = Rng(4)
    for _ in range(60):
        real.apply(real.to_act()[0], choose(real, chooser))
    seat = real.to_act()[0]
    back = with_real_hidden_parts(GAME.determinize(as_json(real.observation(seat)), 9), real)
    a, b = real.clone(), back
    moves = Rng(5)
    while not a.is_over():
        assert a.legal_actions(a.to_act()[0]) == b.legal_actions(b.to_act()[0])
        action = choose(a, moves)
        a.apply(a.to_act()[0], action)
        b.apply(b.to_act()[0], action)
        assert a.snapshot() == b.snapshot()
    assert a.outcome() == b.outcome()


def test_different_seeds_sample_different_decks_and_reserves() -> None:
    real = GAME.new(2, 12)
    chooser = Rng(1)
    diverse = 0
    while not real.is_over():
        seat = real.to_act()[0]
        obs = as_json(real.observation(seat))
        samples = [GAME.determinize(obs, k) for k in range(8)]
        decks = {st.decks for st in samples}
        if sum(len(d) > 1 for d in real.decks):
            assert len(decks) > 1, f"every seed sampled the same decks at step {real.step}"
            diverse += 1
        assert len({st.rng.state for st in samples}) == 8
        assert GAME.determinize(obs, 3) == samples[3]  # the same seed, the same state
        real.apply(seat, choose(real, chooser))
    assert diverse > 50


def test_hidden_cards_are_sampled_uniformly() -> None:
    """The opponent reserved two cards blind: each unseen level-2 card is the
    deck's top, or one of those reserves, about as often as the others
    (bounds of about five standard deviations)."""
    real = GAME.new(2, 6, {"first_seat": 0})
    chooser = Rng(2)
    while sum(c in real.blind for c in real.reserved[0]) < 2 or real.active != 1:
        if real.is_over():
            pytest.fail("no blind reserves in this game")
        legal = real.legal_actions(real.to_act()[0])
        deck2 = [a for a in legal if a.endswith("deck2")]
        action = deck2[0] if real.active == 0 and deck2 else chooser.choice(legal)
        real.apply(real.to_act()[0], action)
    obs = as_json(real.observation(1))
    unseen = [CARD_IDS[c] for c in LEVEL_CARDS[1] if CARD_IDS[c] not in visible_ids(obs)]
    samples = 2000
    tops: Counter = Counter()
    reserved: Counter = Counter()
    for k in range(samples):
        st = GAME.determinize(obs, k)
        tops[CARD_IDS[st.decks[1][-1]]] += 1
        reserved.update(CARD_IDS[c] for c in st.reserved[0] if c in st.blind)
    assert set(tops) == set(reserved) == set(unseen)
    for counter, per_sample in ((tops, 1), (reserved, 2)):
        expected = samples * per_sample / len(unseen)
        assert all(abs(v - expected) < 5 * expected**0.5 for v in counter.values()), counter


# -- bad input ---------------------------------------------------------------------


def blind_observation() -> tuple[SplendorDuelState, dict]:
    """Seat 1's view mid-game, seat 0 holding a blind reserve it cannot see."""
    real = GAME.new(2, 3, {"first_seat": 0})
    chooser = Rng(8)
    while not (real.active == 1 and real.blind and real.step > 20):
        legal = real.legal_actions(real.to_act()[0])
        blind = [a for a in legal if "deck" in a and real.active == 0]
        real.apply(real.to_act()[0], blind[0] if blind else chooser.choice(legal))
    return real, as_json(real.observation(1))


def _set(path: tuple, value):
    def change(obs: dict) -> None:
        target = obs
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _first_blind(obs: dict) -> dict:
    return next(r for r in obs["players"][0]["reserved"] if r["card"] is None)


BAD = {
    "other game": _set(("game",), "edel-stein-reich"),
    "spectator": _set(("seat",), None),
    "seat out of range": _set(("seat",), 2),
    "step is text": _set(("step",), "7"),
    "step is a bool": _set(("step",), True),
    "unknown phase": _set(("phase",), "lunch"),
    "a field of another version": lambda o: o.update(market=[]),
    "a field missing": lambda o: o.pop("bag"),
    "unknown card": _set(("pyramid", 0, 0), "L9-99"),
    "card twice": lambda o: o["players"][1]["cards"].append(o["pyramid"][0][0]),
    "too many red tokens": _set(("players", 1, "tokens", "red"), 9),
    "bag off by one": _set(("bag", "pearl"), 3),
    "deck too big": _set(("deck_sizes", 1), 40),
    "deck size is text": _set(("deck_sizes", 0), "3"),
    "hidden reserve of level 4": lambda o: _first_blind(o).update(level=4),
    "hidden reserve not blind": lambda o: _first_blind(o).update(blind=False),
    "own card hidden": lambda o: o["players"][1]["reserved"].append(
        {"card": None, "level": 1, "blind": True}
    ),
    "pyramid level too short": lambda o: o["pyramid"][0].pop(),
    "three players": lambda o: o["players"].append(o["players"][0]),
    "two seats to act": _set(("to_act",), [0, 1]),
    "wrong derived prestige": _set(("players", 0, "prestige"), 19),
    "over without an outcome": _set(("phase",), "over"),
    "a steal decision without its effect": _set(("phase",), "steal"),
    "a royal effect in the main phase": _set(("pending",), [{"effect": "royal", "crowns": 3}]),
    "a discard with few tokens": _set(("phase",), "discard"),
    "privileges over the supply": _set(("players", 0, "privileges"), 3),
    "step past the cap": _set(("step",), 2000),
}


@pytest.mark.parametrize("name", list(BAD))
def test_an_impossible_observation_is_refused_with_a_message(name: str) -> None:
    real, obs = blind_observation()
    bad = copy.deepcopy(obs)
    BAD[name](bad)
    with pytest.raises(SnapshotError) as info:
        GAME.determinize(bad, 1)
    message = str(info.value)
    assert "splendor-duel" in message and len(message) > 30, message
    assert GAME.determinize(obs, 1).observation(1) == obs  # the original is fine


def test_the_message_names_the_field_that_cannot_be() -> None:
    _, obs = blind_observation()
    with pytest.raises(SnapshotError, match=r"players\[0\]\.prestige cannot be 19"):
        GAME.determinize(_changed(obs, _set(("players", 0, "prestige"), 19)), 1)
    with pytest.raises(SnapshotError, match="market is no field"):
        GAME.determinize(_changed(obs, lambda o: o.update(market=[])), 1)
    with pytest.raises(SnapshotError, match="no card 'L9-99' in rules 1.0"):
        GAME.determinize(_changed(obs, _set(("pyramid", 0, 0), "L9-99")), 1)
    with pytest.raises(SnapshotError, match=r"deck_sizes\[1\] is 40"):
        GAME.determinize(_changed(obs, _set(("deck_sizes", 1), 40)), 1)


def _changed(obs: dict, change) -> dict:
    out = copy.deepcopy(obs)
    change(out)
    return out


def test_bad_arguments_and_other_options_are_refused() -> None:
    real, obs = blind_observation()
    with pytest.raises(SnapshotError, match="not an observation"):
        GAME.determinize("obs", 1)  # type: ignore[arg-type]
    with pytest.raises(SnapshotError, match="seed"):
        GAME.determinize(obs, "1")  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="no_such"):
        GAME.determinize(obs, 1, {"no_such": 1})
    # the options of another match: the other first seat, a step cap already passed
    with pytest.raises(SnapshotError, match="first_seat"):
        GAME.determinize(obs, 1, {"first_seat": 1})
    with pytest.raises(SnapshotError, match="step cap"):
        GAME.determinize(obs, 1, {"step_cap": real.step})
    assert GAME.determinize(obs, 1, {"first_seat": 0, "step_cap": real.step + 1}).step_cap == (
        real.step + 1
    )


def test_a_mutated_observation_is_refused_or_consistent() -> None:
    """Small random changes to real observations: determinize either refuses
    them with SnapshotError or returns a state that keeps the invariants,
    shows exactly the changed observation and plays on. Nothing else escapes."""
    real = GAME.new(2, 21)
    chooser = Rng(3)
    refused = accepted = 0
    while not real.is_over():
        seat = real.to_act()[0]
        for viewer in (seat, 1 - seat):
            obs = as_json(real.observation(viewer))
            bad = copy.deepcopy(obs)
            poke(bad, chooser)
            try:
                st = GAME.determinize(bad, 1)
            except SnapshotError:
                refused += 1
                continue
            st.check_invariants()
            assert st.observation(viewer) == bad
            play_to_end(st, Rng(accepted)).check_invariants()
            accepted += 1
        real.apply(seat, choose(real, chooser))
    assert refused > 100 and accepted > 5
