"""The flow of a game: phases, rounds, the secret choice and its resolution.

Every function takes the state (`state.EsrState`) and changes it in place;
`state.py` validates an action before anything here runs, so these
functions may assume the action is legal. Section numbers refer to RULES.md.

A decision that is still open is a *phase* of the state (``st.phase`` and
``st.actor``); the handler of its action returns True when the action card
being resolved is finished, and `finish_action` moves on to the next one.
"""

from __future__ import annotations

from arena.games.edel_stein_reich import actions, bargaining, scoring

MONEY, EVENT, GEMS, FREE = 0, 1, 2, 3
ACTION_NAMES = ("money", "event", "gems", "free")

COMMIT = "commit"
BARGAIN = "bargain"
OVER = "over"

PHASES = 3
ACCEPT_ONLY = ["accept"]


# -- set-up -------------------------------------------------------------------


def start_phase(st) -> None:
    """§3.7 / §10.5: shuffle all gem cards, set some aside, deal the first round."""
    cards = list(range(len(st.comp.gem_cards)))
    st.rng.shuffle(cards)
    k = st.comp.set_aside[st.n]
    st.set_aside = cards[:k]
    st.gem_deck = cards[k:]
    st.gem_discard = []
    st.round_no = 0
    start_round(st)


def start_round(st) -> None:
    st.prev_log = st.log
    st.log = []
    deck = st.gem_deck
    st.gem_card = [deck.pop() for _ in range(st.n)]  # §5.1
    if st.offered < 0:  # a card kept by `untaken_event` = "keep" is still on offer (§5.5)
        actions.refill_event_deck(st)
        st.offered = st.ev_deck.pop() if st.ev_deck else -1  # §5.2
    st.commits = [-1] * st.n
    st.revealed = False
    st.phase = COMMIT
    st.actor = -1


# -- the secret choice (§5.3) ---------------------------------------------------


def commit(st, seat: int, arg: str) -> bool:
    st.commits[seat] = ACTION_NAMES.index(arg)
    if -1 in st.commits:
        return False
    # The last commit reveals all choices at once and resolves the round.
    st.revealed = True
    st.log.append(("reveal", tuple(st.commits)))
    st.res_idx = 0
    resolve(st)
    return False


def resolve(st) -> None:
    """§5.4: resolve the action cards in number order until a decision is open."""
    count = 4 if st.n == 5 else 3
    commits = st.commits
    while st.res_idx < count:
        a = st.res_idx
        choosers = [s for s in range(st.n) if commits[s] == a]
        k = len(choosers)
        if a == FREE:
            if k and actions.begin_free_choice(st, choosers):
                return
        elif k == 1:
            if perform(st, a, choosers[0]):
                return
        elif k == 2:
            if begin_bargain(st, a, choosers):
                return
        elif k >= 3:
            st.log.append(("lost", a, tuple(choosers)))
        st.res_idx += 1
    end_round(st)


def finish_action(st) -> None:
    st.res_idx += 1
    st.phase = COMMIT
    st.actor = -1
    resolve(st)


def perform(st, a: int, seat: int) -> bool:
    """The seat carries out action `a` (§7); True when a decision is now open."""
    st.log.append(("perform", a, seat))
    card = st.comp.gem_cards[st.gem_card[seat]]
    if a == MONEY:  # §7.1
        actions.pay(st, seat, card.money)
        return False
    if a == GEMS:  # §7.3
        actions.gain(st, seat, card.gems)
        return False
    return actions.begin_event(st, seat)  # §7.2


# -- bargaining (§6) --------------------------------------------------------------


def begin_bargain(st, a: int, pair: list[int]) -> bool:
    o, other = bargaining.priority_order(pair, st.gems, st.money, st.options["priority_tiebreak"])
    if not any(st.gems[o]):
        # §6.3 [H]: an opener without gems passes the opening, or with
        # `gemless_opener` = "void" the action is void at once
        if st.options["gemless_opener"] == "pass":
            o, other = other, o
        if not any(st.gems[o]):
            st.log.append(("void", a, tuple(sorted(pair))))
            return False
    st.bar_action = a
    st.bar_seats = (o, other)
    st.bar_maker = -1
    st.bar_standing = (0, 0, 0, 0)
    st.bar_size = st.bar_value = 0
    st.bar_build = []
    st.phase = BARGAIN
    st.actor = o
    return True


def bargain_legal(st) -> list[str]:
    build = st.bar_build
    counts = bargaining.stage_counts(
        st.gems[st.actor], build, st.bar_size, st.bar_value, st.comp.barter_value
    )
    if not build:
        if not counts:
            # No count of red leads to a beating offer, so no raise exists:
            # §6.3 forcing rule, the seat must accept.
            return ACCEPT_ONLY
        return bargaining.stage_actions(0, counts, st.bar_maker >= 0)
    return bargaining.stage_actions(len(build), counts, False)


def bargain_offer(st, seat: int, arg: str) -> bool:
    build = st.bar_build
    build.append(int(arg[1:]))
    if len(build) < 4:
        return False
    st.bar_standing = tuple(build)
    st.bar_size, st.bar_value = bargaining.size_value(build, st.comp.barter_value)
    st.bar_maker = seat
    st.bar_build = []
    st.log.append(("offer", seat, st.bar_standing))
    o, other = st.bar_seats
    st.actor = other if seat == o else o
    return False


def bargain_accept(st, seat: int, arg: str) -> bool:
    """§6.4: the accepting seat takes the offered gems; the maker acts."""
    maker = st.bar_maker
    offer = st.bar_standing
    mine, theirs = st.gems[seat], st.gems[maker]
    for c in range(4):
        theirs[c] -= offer[c]
        mine[c] += offer[c]
    if st.barter_winner == "more_gems":
        winner = bargaining.winner_by_more_gems(theirs, mine, maker, maker, seat)
    else:
        winner = maker
    st.log.append(("accept", seat, maker, offer, winner))
    st.phase = COMMIT
    st.actor = -1
    return not perform(st, st.bar_action, winner)


# -- end of round and phase (§5.5, §10, §11) ----------------------------------------


def end_round(st) -> None:
    st.gem_discard.extend(st.gem_card)
    st.gem_card = [-1] * st.n
    if st.offered >= 0 and st.options["untaken_event"] == "discard":
        # §5.5 [H]: an untaken offered event is discarded (with "keep" it stays offered)
        st.ev_discard.append(st.offered)
        st.offered = -1
    st.commits = [-1] * st.n  # every action card goes back to its owner
    st.revealed = False
    st.phase = COMMIT
    st.actor = -1
    if st.gem_deck:
        st.round_no += 1
        start_round(st)
        return
    scoring.score_phase(st)
    if st.phase_no + 1 >= PHASES:
        end_game(st, "three phases scored")
        return
    st.phase_no += 1
    if st.options["event_deck_between_phases"] == "reshuffle":
        actions.reshuffle_event_deck(st)  # §10.5 [H]; by default the deck is kept
    start_phase(st)


def end_game(st, reason: str) -> None:
    st.phase = OVER
    st.actor = -1
    st.end_reason = reason


def legal(st) -> list[str]:
    """The open decision's actions for `st.actor` (not for the commit phase)."""
    phase = st.phase
    if phase == BARGAIN:
        return bargain_legal(st)
    return actions.LEGAL[phase](st)


def handle(st, seat: int, action: str) -> None:
    """Carry out one validated action (including an engine-forced one)."""
    head, _, arg = action.partition(" ")
    done = HANDLERS[head](st, seat, arg)
    if done:
        finish_action(st)


HANDLERS = {
    "play": commit,
    "offer": bargain_offer,
    "accept": bargain_accept,
    "take": actions.take_event,
    "blind": actions.blind_event,
    "apply": actions.apply_event,
    "decline": actions.decline_event,
    "pick": actions.pick,
    "return": actions.return_gem,
    "swap": actions.swap,
    "give": actions.give,
}
