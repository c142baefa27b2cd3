"""Scoring after each phase (RULES.md §10) and the final ranking (§11).

All numbers (colour values, certificate prizes, rounding, the tie return)
come from the component data, whose defaults are house values.
"""

from __future__ import annotations

from arena.engine import Outcome, ranks_from_keys
from arena.games.edel_stein_reich.actions import pay


def split(total: int, ways: int, round_up: bool) -> int:
    """`total` shared `ways` ways, rounded down (the remainder stays in the
    bank) or up (the bank pays the difference) as the component data says."""
    return -(-total // ways) if round_up else total // ways


def majority(
    counts: list[int],
    value: int,
    minimum: int,
    round_up: bool,
    tie_return: int,
    split_round_up: bool = False,
) -> tuple[list[int], int, int]:
    """One colour's majority (§10.1): (paid seats, money each, gems each returns).

    Nobody scores below `minimum` gems (so never with 0). A sole holder of
    the most gets the full value and returns half (`round_up` is the rounding
    of that half); tied holders split the value (rounded as `split_round_up`
    says) and each return `tie_return` gems (or all they hold).
    """
    top = max(counts)
    if top < minimum:
        return [], 0, 0
    winners = [s for s, k in enumerate(counts) if k == top]
    if len(winners) == 1:
        return winners, value, (top + 1) // 2 if round_up else top // 2
    return winners, split(value, len(winners), split_round_up), min(top, tie_return)


def certificate_prizes(
    counts: list[int], awards: tuple[int, ...], ties: str = "split", split_round_up: bool = False
) -> list[int]:
    """Money per seat for certificates (§10.3).

    Only seats with a certificate compete. Ties are a house rule (the
    `certificate_ties` option): with "split", seats tied on a rank add up the
    prizes of the places they occupy and split them equally, rounded as the
    data's `split_rounding` says (prizes 10/4: two tied for most get 7 each);
    with "full", each gets the prize of the best place they share (10 each). Either way the tied seats
    use up the places they occupy (no second prize after a tie for most).
    """
    prizes = [0] * len(counts)
    place = 0
    for level in sorted({k for k in counts if k > 0}, reverse=True):
        group = [s for s, k in enumerate(counts) if k == level]
        if ties == "full":
            each = awards[place] if place < len(awards) else 0
        else:
            each = split(sum(awards[place : place + len(group)]), len(group), split_round_up)
        for s in group:
            prizes[s] = each
        place += len(group)
    return prizes


def score_phase(st) -> None:
    """§10 steps 1–4, in place; every payment and return is logged."""
    comp = st.comp
    n = st.n
    paid: list[list[int]] = []
    for c in range(4):
        winners, each, back = majority(
            [st.gems[s][c] for s in range(n)],
            comp.scoring_value[c],
            comp.majority_minimum,
            comp.majority_half_round_up,
            comp.majority_tie_return,
            comp.split_round_up,
        )
        paid.append(winners)
        for s in winners:
            pay(st, s, each)
            st.gems[s][c] -= back
            st.supply[c] += back
        if winners:
            st.log.append(("majority", c, tuple(winners), each, back))
    kinds = comp.event_kinds
    certificates = [0] * n
    for s in range(n):
        for card in st.held[s]:
            kind = kinds[card]
            if kind.op == "majority_bonus" and s in paid[kind.colour]:
                pay(st, s, kind.amount)  # §9.3: never split, stacks
                st.log.append(("bonus", s, card, kind.amount))
            elif kind.op == "certificate":
                certificates[s] += 1
    ties = st.options["certificate_ties"]
    prizes = certificate_prizes(certificates, comp.certificate_awards, ties, comp.split_round_up)
    for s, prize in enumerate(prizes):
        if certificates[s]:
            pay(st, s, prize)
            st.log.append(("certificates", s, certificates[s], prize))
    for s in range(n):  # §10.4 cleanup
        st.ev_discard.extend(st.held[s])
        st.held[s] = []
    st.log.append(("scored", st.phase_no + 1))


def gem_value(gems, barter) -> int:
    return sum(k * v for k, v in zip(gems, barter, strict=True))


def final_outcome(st) -> Outcome:
    """§11: most money wins; ties [H] by the `final_tiebreak` option: "gem_value" =
    higher gem value, then a shared rank; "shared" = a shared rank at once."""
    barter = st.comp.barter_value
    if st.options["final_tiebreak"] == "shared":
        keys = [(st.money[s],) for s in range(st.n)]
    else:
        keys = [(st.money[s], gem_value(st.gems[s], barter)) for s in range(st.n)]
    return Outcome(ranks_from_keys(keys), tuple(float(m) for m in st.money), st.end_reason)
