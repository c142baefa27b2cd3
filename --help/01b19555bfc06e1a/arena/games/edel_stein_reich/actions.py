"""Carrying out actions: money, gems, events and Free Choice (RULES.md §7–§9).

Handlers take a validated action and return True when the action card being
resolved is finished (then `rules.finish_action` moves on). Gains are capped
by the supply (§8); the bank is unlimited, but every payment goes through
`pay` so the money ledger can be checked.
"""

from __future__ import annotations

from arena.games.edel_stein_reich import bargaining
from arena.games.edel_stein_reich.components import LETTER_INDEX, LETTERS

EVENT_CHOICE = "event_choice"
IMMEDIATE = "immediate"
PICK = "pick"
RETURN = "return"
SWAP = "swap"
TRIBUTE = "tribute"


def _by_mask(verb: str) -> tuple[list[str], ...]:
    """Sorted `verb <colour>` actions for every set of available colours (bit c = colour c)."""
    return tuple(
        sorted(f"{verb} {LETTERS[c]}" for c in range(4) if mask >> c & 1) for mask in range(16)
    )


PICK_BY_MASK = _by_mask("pick")
RETURN_BY_MASK = _by_mask("return")
GIVE_BY_MASK = _by_mask("give")


def mask(gems) -> int:
    return (gems[0] > 0) | (gems[1] > 0) << 1 | (gems[2] > 0) << 2 | (gems[3] > 0) << 3


def pay(st, seat: int, amount: int) -> None:
    """The bank pays `amount` to `seat` (the bank is unlimited, §8)."""
    st.money[seat] += amount
    st.bank_paid += amount


def gain(st, seat: int, gems) -> tuple[int, int, int, int]:
    """Take gems from the supply, each colour capped by what is left (§8)."""
    supply, mine = st.supply, st.gems[seat]
    got = [0, 0, 0, 0]
    for c in range(4):
        k = gems[c]
        if k:
            if k > supply[c]:
                k = supply[c]
            supply[c] -= k
            mine[c] += k
            got[c] = k
    out = (got[0], got[1], got[2], got[3])
    st.log.append(("gain", seat, out))
    return out


def refill_event_deck(st) -> None:
    """§5.2 / §7.2 [H]: an empty event deck is refilled by shuffling the discard pile
    (unless the `event_reshuffle` option is off: then it stays empty)."""
    if not st.ev_deck and st.ev_discard and st.options["event_reshuffle"]:
        st.ev_deck = st.ev_discard
        st.ev_discard = []
        st.rng.shuffle(st.ev_deck)
        st.log.append(("reshuffle", len(st.ev_deck)))


def reshuffle_event_deck(st) -> None:
    """§10.5 [H], `event_deck_between_phases` = "reshuffle": at a new phase the event
    discard pile is shuffled together with the deck. The offered card, if one is
    still lying there (`untaken_event` = "keep"), stays offered."""
    if st.ev_discard:
        st.ev_deck += st.ev_discard
        st.ev_discard = []
        st.rng.shuffle(st.ev_deck)
        st.log.append(("reshuffle", len(st.ev_deck)))


# -- Event (§7.2) -------------------------------------------------------------------


def can_draw_blind(st) -> bool:
    """§7.2 [H]: a card is on the deck, or the discard pile will be shuffled into one."""
    return bool(st.ev_deck or (st.ev_discard and st.options["event_reshuffle"]))


def begin_event(st, seat: int) -> bool:
    if st.offered < 0 and not can_draw_blind(st):
        st.log.append(("no_event", seat))  # §7.2 [H]: neither option exists
        return False
    st.phase = EVENT_CHOICE
    st.actor = seat
    return True


def event_choice_legal(st) -> list[str]:
    blind = can_draw_blind(st)
    if st.offered < 0:
        return ["blind"]
    return ["blind", "take"] if blind else ["take"]


def take_event(st, seat: int, arg: str) -> bool:
    card = st.offered
    st.offered = -1
    st.log.append(("take", seat, card))
    return _receive(st, seat, card)


def blind_event(st, seat: int, arg: str) -> bool:
    # [H] the discard pile is reshuffled before the offered card joins it, so
    # the blind draw can never be the card just refused.
    refill_event_deck(st)
    if st.offered >= 0:
        st.ev_discard.append(st.offered)
        st.offered = -1
    card = st.ev_deck.pop()
    st.log.append(("blind", seat, card))
    return _receive(st, seat, card)


def _receive(st, seat: int, card: int) -> bool:
    if st.comp.event_kinds[card].kind != "immediate":
        st.held[seat].append(card)  # Wertung and certificates wait for scoring
        return True
    st.pending_ev = card
    st.phase = IMMEDIATE
    st.actor = seat
    return False


def immediate_legal(st) -> list[str]:
    kind = st.comp.event_kinds[st.pending_ev]
    if kind.op == "swap_one_gem_with_player":
        seat = st.actor
        if not any(st.gems[seat]) or not any(any(st.gems[t]) for t in range(st.n) if t != seat):
            return ["decline"]
    return ["apply", "decline"]


def _done_event(st) -> bool:
    st.ev_discard.append(st.pending_ev)
    st.pending_ev = -1
    return True


def decline_event(st, seat: int, arg: str) -> bool:
    st.log.append(("decline", seat, st.pending_ev))
    return _done_event(st)


def apply_event(st, seat: int, arg: str) -> bool:
    kind = st.comp.event_kinds[st.pending_ev]
    st.log.append(("apply", seat, st.pending_ev))
    op = kind.op
    if op == "gain_money":
        pay(st, seat, kind.amount)
    elif op == "gain_gems":
        gain(st, seat, kind.gems)
    elif op == "gain_any_gems":
        st.pick_ctx = "event"
        st.pick_left = kind.amount
        st.pick_queue = []
        return _next_pick(st)
    elif op == "swap_one_gem_with_player":
        st.phase = SWAP
        return False
    elif op == "each_opponent_gives_one_gem_of_their_choice":
        st.tribute_to = seat
        st.tribute_queue = [(seat + i) % st.n for i in range(1, st.n)]
        return _next_tribute(st)
    return _done_event(st)


def swap_legal(st) -> list[str]:
    seat = st.actor
    own = [LETTERS[c] for c in range(4) if st.gems[seat][c]]
    out = []
    for t in range(st.n):
        if t != seat:
            theirs = [LETTERS[c] for c in range(4) if st.gems[t][c]]
            out.extend(f"swap {t} {g} {k}" for g in own for k in theirs)
    out.sort()
    return out


def swap(st, seat: int, arg: str) -> bool:
    target, give_letter, take_letter = arg.split(" ")
    t, g, k = int(target), LETTER_INDEX[give_letter], LETTER_INDEX[take_letter]
    st.gems[seat][g] -= 1
    st.gems[t][g] += 1
    st.gems[t][k] -= 1
    st.gems[seat][k] += 1
    st.log.append(("swap", seat, t, g, k))
    return _done_event(st)


def _next_tribute(st) -> bool:
    """Victims give in seat order starting left of the taker; gemless seats are skipped."""
    queue = st.tribute_queue
    while queue:
        victim = queue.pop(0)
        if any(st.gems[victim]):
            st.phase = TRIBUTE
            st.actor = victim
            return False
    return _done_event(st)


def give_legal(st) -> list[str]:
    return GIVE_BY_MASK[mask(st.gems[st.actor])]


def give(st, seat: int, arg: str) -> bool:
    c = LETTER_INDEX[arg]
    st.gems[seat][c] -= 1
    st.gems[st.tribute_to][c] += 1
    st.log.append(("give", seat, st.tribute_to, c))
    return _next_tribute(st)


# -- gem picks: gain_any_gems and Free Choice (§7.4, §9.3) ----------------------------------


def pickable(st) -> int:
    """Colours (bit mask) the seat may pick: in stock and not barred by `pick_ban`."""
    m = mask(st.supply)
    if st.pick_ban >= 0:
        m &= ~(1 << st.pick_ban)
    return m


def _next_pick(st) -> bool:
    """Open the next pick, or report the card finished.

    Picks are lost when no colour can be picked: an empty supply (§8), or,
    with `free_choice_same_colour` off, a supply holding only the colour just
    returned [H] (the seat may not take it back, and the game must go on).
    """
    while pickable(st):
        if st.pick_left > 0:
            st.phase = PICK
            return False
        if not st.pick_queue:
            break
        st.actor = st.pick_queue.pop(0)
        st.pick_left = 1
    st.pick_ban = -1
    if st.pick_ctx == "event":
        return _done_event(st)
    return True


def pick_legal(st) -> list[str]:
    return PICK_BY_MASK[pickable(st)]


def pick(st, seat: int, arg: str) -> bool:
    c = LETTER_INDEX[arg]
    st.supply[c] -= 1
    st.gems[seat][c] += 1
    st.pick_left -= 1
    st.log.append(("pick", seat, c))
    return _next_pick(st)


def begin_free_choice(st, choosers: list[int]) -> bool:
    """§7.4; True when a decision is open."""
    st.pick_ctx = "free"
    if len(choosers) == 1:
        seat = choosers[0]
        st.log.append(("perform", 3, seat))
        st.actor = seat
        st.pick_left = 2
        st.pick_queue = []
        if any(st.gems[seat]):
            st.phase = RETURN
            return True
        return not _next_pick(st)  # [H] nothing to return: skip the return
    order = bargaining.priority_order(choosers, st.gems, st.money, st.options["priority_tiebreak"])
    st.log.append(("free_shared", tuple(order)))
    st.actor = order[0]
    st.pick_queue = order[1:]
    st.pick_left = 1
    return not _next_pick(st)


def return_legal(st) -> list[str]:
    return RETURN_BY_MASK[mask(st.gems[st.actor])]


def return_gem(st, seat: int, arg: str) -> bool:
    c = LETTER_INDEX[arg]
    st.gems[seat][c] -= 1
    st.supply[c] += 1
    st.log.append(("return", seat, c))
    if not st.options["free_choice_same_colour"]:
        st.pick_ban = c  # §7.4 [H]: the returned colour may not be taken back
    return _next_pick(st)


LEGAL = {
    EVENT_CHOICE: event_choice_legal,
    IMMEDIATE: immediate_legal,
    PICK: pick_legal,
    RETURN: return_legal,
    SWAP: swap_legal,
    TRIBUTE: give_legal,
}
