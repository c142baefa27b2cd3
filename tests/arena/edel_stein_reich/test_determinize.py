"""GAME.determinize: a full state from one seat's observation.

At every step of random games (3, 4 and 5 seats, several option sets), for
every seat to act and one that is not, the determinized state must show that
seat exactly its observation, list the same legal actions for every seat,
keep the invariants and play on to the end. For the seat whose action comes
next, with the real hidden parts put back (deck orders, set-aside cards,
commits, money, generator), it must also play exactly like the real game: that checks the internal fields the rules
keep (pick and tribute queues, the barred colour, the bargain, the action
being resolved), which the observation shows only indirectly.
"""

from __future__ import annotations

import copy
import json
from collections import Counter

import pytest

from arena.engine import OptionError, SnapshotError
from arena.games.edel_stein_reich import GAME
from arena.games.edel_stein_reich.loader import DEFAULT_COMPONENTS
from arena.games.edel_stein_reich.state import EsrState
from arena.rng import Rng
from tests.arena.edel_stein_reich.helpers import commit_all
from tests.arena.playout import poke


def custom_components() -> dict:
    """An operator's document: start money, other set-aside counts, two gem
    cards that share an id (one of them identical to a third), a small event
    deck that runs out and is reshuffled."""
    doc = json.loads(json.dumps(DEFAULT_COMPONENTS.source))
    doc["house_values"] = False
    doc["start_money"] = 5
    doc["set_aside"] = {"3": 3, "4": 2, "5": 5}
    doc["gem_cards"][2] = dict(doc["gem_cards"][0])  # identical to G01
    doc["gem_cards"][3] = dict(doc["gem_cards"][3], id="G01")  # same id, other card
    for card in doc["event_cards"]:
        card["count"] = 1
    return doc


OPTION_SETS = {
    "defaults": {},
    "money-hidden": {"money_visible": False},
    "top-hidden-keep": {
        "set_aside_top_public": False,
        "untaken_event": "keep",
        "event_reshuffle": False,
    },
    "barter": {
        "barter_winner": "more_gems",
        "gemless_opener": "void",
        "priority_tiebreak": "seat",
    },
    "free-choice": {
        "free_choice_same_colour": False,
        "event_deck_between_phases": "reshuffle",
        "money_visible": False,
        "certificate_ties": "full",
        "final_tiebreak": "shared",
    },
    "custom": {"components": custom_components(), "untaken_event": "keep"},
}


def as_json(obs: dict) -> dict:
    """The observation as a bot reads it."""
    return json.loads(json.dumps(obs))


def hidden_parts(st: EsrState) -> tuple:
    return (tuple(st.ev_deck), tuple(st.gem_deck), tuple(st.set_aside), tuple(st.commits))


def with_real_hidden_parts(sampled: EsrState, real: EsrState) -> EsrState:
    """`sampled` with everything determinize samples or estimates copied from `real`."""
    st = sampled.clone()
    for name in ("ev_deck", "gem_deck", "set_aside", "gem_discard", "commits", "money"):
        setattr(st, name, getattr(real, name)[:])
    st.bank_paid = real.bank_paid
    st.rng = real.rng.clone()
    st._legal = None
    return st


def play_to_end(st: EsrState, chooser: Rng) -> EsrState:
    while not st.is_over():
        to_act = st.to_act()
        seat = to_act[chooser.below(len(to_act))]
        legal = st.legal_actions(seat)
        st.apply(seat, legal[chooser.below(len(legal))])
    return st


def plays_alike(a: EsrState, b: EsrState, seed: int) -> None:
    """The same random actions give the same game (to_act, legal lists, views, outcome)."""
    chooser = Rng(seed)
    while True:
        assert a.to_act() == b.to_act(), f"to_act differs at step {a.step}"
        if a.is_over():
            break
        to_act = a.to_act()
        seat = to_act[chooser.below(len(to_act))]
        legal = a.legal_actions(seat)
        assert b.legal_actions(seat) == legal, f"legal actions differ at step {a.step}"
        action = legal[chooser.below(len(legal))]
        a.apply(seat, action)
        b.apply(seat, action)
    assert a.spectator_view() == b.spectator_view()
    assert a.outcome() == b.outcome() and a.money == b.money


def check_seat(real: EsrState, seat: int, options: dict, seed: int, deep: bool) -> EsrState:
    obs = as_json(real.observation(seat))
    sampled = GAME.determinize(obs, seed, options)
    assert sampled.observation(seat) == obs
    for t in range(real.n):
        assert sampled.legal_actions(t) == real.legal_actions(t), f"seat {t}, {real.phase}"
    assert sampled.to_act() == real.to_act()
    sampled.check_invariants()
    if options.get("money_visible", True):
        assert sampled.money == real.money
    end = play_to_end(sampled.clone(), Rng(seed + 1))
    assert end.outcome() is not None
    end.check_invariants()
    if deep:
        plays_alike(real.clone(), with_real_hidden_parts(sampled, real), seed + 2)
    return sampled


def something_hidden(real: EsrState, seat: int) -> bool:
    """Whether more than one state agrees with the seat's observation (the
    generator aside)."""
    unseen_gems = len(real.gem_deck) + len(real.set_aside)
    if real.options["set_aside_top_public"] and real.set_aside:
        unseen_gems -= 1
    hidden_commits = not real.revealed and any(
        c >= 0 for s, c in enumerate(real.commits) if s != seat
    )
    return len(set(real.ev_deck)) > 1 or unseen_gems > 1 or hidden_commits


@pytest.mark.parametrize("seats", [3, 4, 5])
@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_every_observation_of_a_random_game_determinizes(seats: int, name: str) -> None:
    options = OPTION_SETS[name]
    seed = 100 * seats + list(OPTION_SETS).index(name)
    real = GAME.new(seats, seed, options)
    chooser = Rng(seed + 7)
    count = diverse = 0
    while True:
        to_act = real.to_act()
        idle = [s for s in range(seats) if s not in to_act]
        watched = to_act + idle[real.step % len(idle) :][:1] if idle else to_act
        nxt = to_act[chooser.below(len(to_act))] if to_act else None
        for seat in watched:
            check_seat(real, seat, options, seed + count, deep=seat == nxt or not to_act)
            count += 1
        if to_act and real.step % 3 == 0:
            obs = as_json(real.observation(nxt))
            parts = {hidden_parts(GAME.determinize(obs, k, options)) for k in range(12)}
            if something_hidden(real, nxt):
                assert len(parts) > 1, f"every seed sampled the same at step {real.step}"
                diverse += 1
            else:
                assert len(parts) == 1
        if not to_act:
            break
        legal = real.legal_actions(nxt)
        real.apply(nxt, legal[chooser.below(len(legal))])
    assert count > 200 and diverse > 20
    assert real.outcome().reason == "three phases scored"


def test_the_hidden_choices_and_cards_are_sampled_uniformly() -> None:
    """A position with two hidden commits and most cards unseen: every choice,
    every deck top and every unseen gem card's place come up about as often
    as they should (bounds of about five standard deviations)."""
    real = GAME.new(3, 4)
    real.apply(1, "play money")
    real.apply(2, "play gems")
    obs = as_json(real.observation(0))
    samples = 1500
    commits = [Counter(), Counter()]
    tops: Counter = Counter()
    aside: Counter = Counter()
    for k in range(samples):
        st = GAME.determinize(obs, k)
        commits[0][st.commits[1]] += 1
        commits[1][st.commits[2]] += 1
        tops[st.ev_deck[-1]] += 1
        aside.update(st.set_aside[:-1])  # the top one is shown
    for counter in commits:
        assert sorted(counter) == [0, 1, 2]  # money, event, gems; seat 0 has not chosen
        assert all(abs(v - samples / 3) < 100 for v in counter.values()), counter
    deck = Counter(real.ev_deck)
    for kind, copies in deck.items():
        expected = samples * copies / len(real.ev_deck)
        assert abs(tops[kind] - expected) < 5 * expected**0.5 + 5, (kind, tops[kind], expected)
    unseen = len(real.gem_deck) + len(real.set_aside) - 1
    expected = samples * (len(real.set_aside) - 1) / unseen
    assert len(aside) == unseen
    assert all(abs(v - expected) < 5 * expected**0.5 for v in aside.values()), aside


def test_the_same_seed_gives_the_same_state() -> None:
    real = GAME.new(4, 9)
    real.apply(2, "play event")
    obs = as_json(real.observation(0))
    assert GAME.determinize(obs, 5) == GAME.determinize(obs, 5)
    assert GAME.determinize(obs, 5) != GAME.determinize(obs, 6)


# -- money -------------------------------------------------------------------------


def money_hidden_game() -> EsrState:
    st = GAME.new(3, 3, {"money_visible": False})
    play_to_end_of_round(st)
    return st


def play_to_end_of_round(st: EsrState) -> None:
    commit_all(st, ["money", "gems", "event"])
    chooser = Rng(1)
    while st.phase != "commit":
        legal = st.legal_actions(st.actor)
        st.apply(st.actor, legal[chooser.below(len(legal))])


def test_hidden_money_is_estimated_or_taken_from_the_caller() -> None:
    real = money_hidden_game()
    assert real.money[0] > 0  # seat 0 played Money alone
    obs = as_json(real.observation(1))
    assert obs["players"][0]["money"] is None
    estimated = GAME.determinize(obs, 1, {"money_visible": False})
    # seat 0 was paid its card's money in the last round's log: at least that
    assert estimated.money[0] >= real.money[0]
    assert estimated.money[1] == real.money[1] and estimated.bank_paid == sum(estimated.money)
    given = GAME.determinize(obs, 1, {"money_visible": False}, money=[40, None, 7])
    assert given.money == [40, real.money[1], 7] and given.bank_paid == 47 + real.money[1]
    given.check_invariants()
    with pytest.raises(SnapshotError, match="money"):
        GAME.determinize(obs, 1, {"money_visible": False}, money=[40, real.money[1] + 1, 7])
    with pytest.raises(SnapshotError, match="money"):
        GAME.determinize(obs, 1, {"money_visible": False}, money=[40, None])
    with pytest.raises(SnapshotError):
        GAME.determinize(obs, 1, {"money_visible": False}, money=[-1, None, None])


def test_at_the_end_hidden_money_comes_from_the_outcome() -> None:
    options = {"money_visible": False}
    real = play_to_end(GAME.new(4, 8, options), Rng(2))
    obs = as_json(real.observation(2))
    sampled = GAME.determinize(obs, 3, options)
    assert sampled.money == real.money and sampled.outcome() == real.outcome()


# -- bad input ---------------------------------------------------------------------


def bargain_observation() -> tuple[EsrState, dict]:
    real = GAME.new(4, 2)
    commit_all(real, ["money", "money", "gems", "event"])
    assert real.phase == "bargain"
    return real, as_json(real.observation(real.actor))


def mutated(obs: dict, change) -> dict:
    out = copy.deepcopy(obs)
    change(out)
    return out


def _set(path: tuple, value):
    def change(obs: dict) -> None:
        target = obs
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


#: one of the ten certificates, most of which are still in the event deck
CERTIFICATE = next(k for k in DEFAULT_COMPONENTS.event_kinds if k.id == "certificate").to_json()

BAD = {
    "not a mapping": lambda o: o.clear(),
    "other game": _set(("game",), "splendor-duel"),
    "spectator": _set(("seat",), None),
    "seat out of range": _set(("seat",), 4),
    "seats": _set(("seats",), 6),
    "step is text": _set(("step",), "7"),
    "unknown phase": _set(("phase",), "lunch"),
    "too many red gems": _set(("players", 0, "gems", "red"), 30),
    "gem count is a bool": _set(("players", 0, "gems", "red"), True),
    "supply off by one": _set(("supply", "blue"), 1),
    "negative money": _set(("players", 1, "money"), -3),
    "money hidden with money_visible true": _set(("players", 1, "money"), None),
    "event deck too big": _set(("event_deck_size",), 99),
    "unknown event card": _set(("event_discard",), ["no-such-card"]),
    "too many certificates": _set(("event_discard",), ["certificate"] * 11),
    "gem card twice": _set(("gem_discard",), ["G01", "G01"]),
    "gem deck too small": _set(("gem_deck_size",), 3),
    "step past the cap": _set(("step",), 20_000),
    "two seats to act": _set(("to_act",), [0, 1]),
    "missing log": lambda o: o.pop("log"),
    "bad log entry": _set(("log",), [{"type": "teleport"}]),
    "bad bargain": _set(("bargain", "building"), {"blue": 1}),
    "unknown choice": _set(("choices",), ["money", "money", "gems", "nap"]),
    "wrong round count": _set(("rounds_per_phase",), 3),
    "no reveal": _set(("choices",), None),
    # the four below agree with the rest of the observation, but no rule gets there
    "an event decision without its card": lambda o: o.update(
        phase="immediate", bargain=None, resolving="event"
    ),
    "a swap without its card": lambda o: o.update(phase="swap", bargain=None, resolving="event"),
    "a pick while Money is resolved": lambda o: o.update(
        phase="pick", picks_left=1, bargain=None, resolving="money"
    ),
    "a card pending in a bargain": lambda o: o.update(
        pending_event=CERTIFICATE, event_deck_size=o["event_deck_size"] - 1
    ),
    "bargaining for Free Choice": _set(("bargain", "action"), "free"),
    "bargaining with oneself": lambda o: o["bargain"].update(other=o["bargain"]["opener"]),
    "resolving another card": _set(("resolving",), "gems"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_an_impossible_observation_is_refused(name: str) -> None:
    real, obs = bargain_observation()
    bad = mutated(obs, BAD[name])
    with pytest.raises(SnapshotError) as info:
        GAME.determinize(bad, 1)
    assert "edel-stein-reich" in str(info.value) or "spectator" in str(info.value)
    assert GAME.determinize(obs, 1).observation(real.actor) == obs  # the original is fine


def test_bad_arguments_are_refused() -> None:
    _, obs = bargain_observation()
    with pytest.raises(SnapshotError, match="not an observation"):
        GAME.determinize("obs", 1)  # type: ignore[arg-type]
    with pytest.raises(SnapshotError, match="seed"):
        GAME.determinize(obs, "1")  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="no_such"):
        GAME.determinize(obs, 1, {"no_such": 1})
    # the options of another match: money hidden, set-aside top hidden
    with pytest.raises(SnapshotError, match="money"):
        GAME.determinize(obs, 1, {"money_visible": False})


def test_a_mutated_observation_is_refused_or_consistent() -> None:
    """Small random changes to real observations: determinize either refuses
    them with SnapshotError or returns a state that keeps the invariants and
    shows exactly the changed observation. It never crashes otherwise."""
    real = GAME.new(4, 21, {"money_visible": False})
    chooser = Rng(3)
    refused = accepted = 0
    while not real.is_over():
        seat = real.to_act()[0]
        obs = as_json(real.observation(seat))
        for _ in range(3):
            bad = copy.deepcopy(obs)
            poke(bad, chooser)
            try:
                st = GAME.determinize(bad, 1, {"money_visible": False})
            except SnapshotError:
                refused += 1
                continue
            st.check_invariants()
            assert st.observation(seat) == bad
            play_to_end(st, Rng(accepted)).check_invariants()  # and it plays on
            accepted += 1
        legal = real.legal_actions(seat)
        real.apply(seat, legal[chooser.below(len(legal))])
    assert refused > 100 and accepted > 10
