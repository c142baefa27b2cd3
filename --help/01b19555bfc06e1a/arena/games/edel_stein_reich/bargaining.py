"""Bargaining between the two seats that chose the same action (RULES.md §6).

An offer is a multiset of the offering seat's gems, compared by
``(number of gems, barter value)`` (§6.2). A complete raise is announced in
up to four steps, one per colour in value order (``offer r2``, ``offer y0``,
``offer g1``, ``offer b0``), so that every multiset can be offered while a
decision never lists more than 24 actions: choosing whole multisets at once
would list up to one action per multiset of the seat's gems (hundreds, in
theory 23⁴). Each path of counts gives exactly one multiset, and a count is
listed only if the offer can still be completed into one that beats the
standing offer, so a raise that has been started can always be finished.
A colour whose count is forced (only one count listed) is filled in by the
engine without asking.

The state machine of §6.3: the opener must raise first; afterwards the seat
to act either raises or accepts; a seat with no possible raise is made to
accept. Every raise strictly increases (size, value), so bargaining ends.
"""

from __future__ import annotations

from arena.games.edel_stein_reich.components import LETTERS

#: "offer r0" … for every colour and count (counts up to 99 gems per colour)
OFFER_ACTIONS: tuple[tuple[str, ...], ...] = tuple(
    tuple(f"offer {letter}{k}" for k in range(100)) for letter in LETTERS
)
_option_cache: dict[tuple[int, int, int, bool], list[str]] = {}


def size_value(gems, barter) -> tuple[int, int]:
    return (
        gems[0] + gems[1] + gems[2] + gems[3],
        gems[0] * barter[0] + gems[1] * barter[1] + gems[2] * barter[2] + gems[3] * barter[3],
    )


def priority_key(gems, money: int, seat: int) -> tuple[int, ...]:
    """Sort key of §6.1: fewer red, yellow, green, blue; then less money; then lower seat."""
    return (gems[0], gems[1], gems[2], gems[3], money, seat)


def priority_order(seats, gems, money, tiebreak: str) -> list[int]:
    """`seats` in the priority order of §6.1 (`gems` and `money` indexed by seat).

    After the colours, `tiebreak` (the `priority_tiebreak` option, [H]) decides:
    "less_money" = less money, then lower seat; "seat" = lower seat.
    """
    if tiebreak == "seat":
        return sorted(seats, key=lambda s: priority_key(gems[s], 0, s))
    return sorted(seats, key=lambda s: priority_key(gems[s], money[s], s))


def can_raise(holding, standing_size: int, standing_value: int, barter) -> bool:
    """Whether offering everything the seat holds beats the standing offer.

    Offering all gems maximises both size and value, so if it does not beat
    the standing offer nothing does.
    """
    size, value = size_value(holding, barter)
    return size > standing_size or (size == standing_size and value > standing_value)


def stage_counts(
    holding, partial: list[int], standing_size: int, standing_value: int, barter
) -> range:
    """Counts of colour ``len(partial)`` that still allow a beating offer.

    The best completion takes every gem of the later colours; it beats the
    standing offer for all counts from some minimum up to the holding.
    """
    stage = len(partial)
    b0, b1, b2, b3 = barter
    h0, h1, h2, h3 = holding
    # size and value of the partial offer plus every gem of the later colours
    if stage == 0:
        size, value = h1 + h2 + h3, h1 * b1 + h2 * b2 + h3 * b3
    elif stage == 1:
        k0 = partial[0]
        size, value = k0 + h2 + h3, k0 * b0 + h2 * b2 + h3 * b3
    elif stage == 2:
        k0, k1 = partial
        size, value = k0 + k1 + h3, k0 * b0 + k1 * b1 + h3 * b3
    else:
        k0, k1, k2 = partial
        size, value = k0 + k1 + k2, k0 * b0 + k1 * b1 + k2 * b2
    held = holding[stage]
    # smallest k with (size + k, value + k·unit) > (standing_size, standing_value)
    lo = standing_size - size
    if lo < 0:
        lo = 0
    elif value + lo * barter[stage] <= standing_value:
        lo += 1
    return range(lo, held + 1)


def stage_actions(stage: int, counts: range, with_accept: bool) -> list[str]:
    """The sorted action strings of one offer step (cached: they repeat a lot)."""
    key = (stage, counts.start, counts.stop, with_accept)
    cached = _option_cache.get(key)
    if cached is None:
        names = OFFER_ACTIONS[stage]
        cached = sorted([names[k] for k in counts] + (["accept"] if with_accept else []))
        _option_cache[key] = cached
    return cached


def winner_by_more_gems(a_gems, b_gems, maker: int, a: int, b: int) -> int:
    """The `barter_winner = more_gems` rule (KOREAN_SUMMARY, RULES.md §6.4 note).

    After the trade the seat with more red gems takes the action, then more
    yellow, green, blue; if the holdings are equal the maker of the accepted
    offer keeps it (house rule).
    """
    ka = (a_gems[0], a_gems[1], a_gems[2], a_gems[3])
    kb = (b_gems[0], b_gems[1], b_gems[2], b_gems[3])
    if ka == kb:
        return maker
    return a if ka > kb else b
