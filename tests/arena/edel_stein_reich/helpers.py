"""Building Edel, Stein & Reich positions for scenario tests.

Scenarios start from a real new game and then *arrange* it: set gem
holdings (the supply is adjusted so the 88 gems stay conserved), move a
chosen gem card in front of a seat, put a chosen event card on offer or on
top of the deck. Every arrangement swaps cards instead of inventing them, so
`check_invariants()` still holds.
"""

from __future__ import annotations

from arena.games.edel_stein_reich import GAME
from arena.games.edel_stein_reich.state import EsrState

COLOUR_INDEX = {"red": 0, "yellow": 1, "green": 2, "blue": 3}


def new(seats: int = 4, seed: int = 1, **options) -> EsrState:
    return GAME.new(seats, seed, options)


def set_gems(st: EsrState, seat: int, red=0, yellow=0, green=0, blue=0) -> None:
    st.gems[seat] = [red, yellow, green, blue]
    _fix_supply(st)


def set_all_gems(st: EsrState, holdings: list[tuple[int, int, int, int]]) -> None:
    for seat, gems in enumerate(holdings):
        st.gems[seat] = list(gems)
    _fix_supply(st)


def set_supply(st: EsrState, red: int, yellow: int, green: int, blue: int, into: int = 0) -> None:
    """Set the supply; the difference goes to (or comes from) seat `into`."""
    want = [red, yellow, green, blue]
    last = st.gems[into]
    for c in range(4):
        last[c] += st.supply[c] - want[c]
        assert last[c] >= 0, "not enough gems to arrange this supply"
    st.supply = want
    st._legal = None  # the arrangement may change the open decision's list


def _fix_supply(st: EsrState) -> None:
    per = st.comp.gems_per_colour
    st.supply = [per - sum(g[c] for g in st.gems) for c in range(4)]
    assert min(st.supply) >= 0
    st._legal = None


def gem_card_index(st: EsrState, card_id: str) -> int:
    return next(i for i, c in enumerate(st.comp.gem_cards) if c.id == card_id)


def give_gem_card(st: EsrState, seat: int, card_id: str) -> None:
    """Put the gem card `card_id` in front of `seat` (swapping it with its place)."""
    want = gem_card_index(st, card_id)
    have = st.gem_card[seat]
    if want == have:
        return
    for pile in (st.gem_deck, st.gem_discard, st.set_aside, st.gem_card):
        if want in pile:
            pile[pile.index(want)] = have
            break
    st.gem_card[seat] = want


def kind_index(st: EsrState, kind_id: str) -> int:
    return next(i for i, k in enumerate(st.comp.event_kinds) if k.id == kind_id)


def _take_event(st: EsrState, kind_id: str) -> int:
    """Remove one card of kind `kind_id` from the deck or discard pile and return it."""
    k = kind_index(st, kind_id)
    for pile in (st.ev_deck, st.ev_discard):
        if k in pile:
            pile.remove(k)
            return k
    raise AssertionError(f"no {kind_id} card left in the deck or discard pile")


def set_offered(st: EsrState, kind_id: str | None) -> None:
    """Offer a card of `kind_id` (None: no offered card; the old one goes to the discard)."""
    if st.offered >= 0:
        st.ev_discard.append(st.offered)
        st.offered = -1
    if kind_id is not None:
        st.offered = _take_event(st, kind_id)


def set_deck_top(st: EsrState, kind_id: str) -> None:
    st.ev_deck.append(_take_event(st, kind_id))


def hold_event(st: EsrState, seat: int, kind_id: str) -> None:
    st.held[seat].append(_take_event(st, kind_id))


def commit_all(st: EsrState, choices: dict[int, str] | list[str]) -> None:
    """Every seat plays its action card ("money", "event", "gems", "free")."""
    items = choices.items() if isinstance(choices, dict) else enumerate(choices)
    for seat, name in items:
        st.apply(seat, f"play {name}")


def offer(st: EsrState, seat: int, red=0, yellow=0, green=0, blue=0) -> None:
    """Announce a full raise colour by colour; steps the engine forced are skipped."""
    counts = (red, yellow, green, blue)
    for stage, letter in enumerate("rygb"):
        if st.phase == "bargain" and st.actor == seat and len(st.bar_build) == stage:
            st.apply(seat, f"offer {letter}{counts[stage]}")
    assert st.bar_maker == seat and st.bar_standing == counts
