"""Random playouts with the game's invariants checked after every step.

The generic conformance suite (tests/arena/test_conformance.py) plays the
default options; these also play the non-default ones and check the bound
on legal-list lengths documented in docs/games/edel-stein-reich.md.
"""

from __future__ import annotations

import json

import pytest

from arena.games.edel_stein_reich import GAME
from arena.rng import Rng

#: the longest legal list: a swap with 4 own colours × 4 colours × 4 other seats
MAX_LEGAL = 64


def playout(seats: int, seed: int, options=None, check=True):
    st = GAME.new(seats, seed, options)
    chooser = Rng(seed + 1000)
    longest = 0
    while not st.is_over():
        to_act = st.to_act()
        seat = to_act[chooser.below(len(to_act))]
        legal = st.legal_actions(seat)
        longest = max(longest, len(legal))
        assert len(legal) >= 2 or st.phase == "commit", "a forced decision was asked"
        st.apply(seat, legal[chooser.below(len(legal))])
        if check:
            st.check_invariants()
    return st, longest


@pytest.mark.parametrize("seats", [3, 4, 5])
@pytest.mark.parametrize(
    "options", [{}, {"barter_winner": "more_gems"}, {"money_visible": False}], ids=str
)
def test_random_games_keep_the_invariants(seats, options):
    for seed in range(3):
        st, longest = playout(seats, seed, options)
        assert st.outcome().reason == "three phases scored"
        assert longest <= MAX_LEGAL
        json.dumps(st.observation(0))


def test_same_seed_same_game():
    a, _ = playout(4, 42, check=False)
    b, _ = playout(4, 42, check=False)
    assert a.snapshot() == b.snapshot()
    c, _ = playout(4, 43, check=False)
    assert c.snapshot() != a.snapshot()
