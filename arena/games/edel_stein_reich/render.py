"""Plain-text rendering and actions in words (CLI, debugging, replays).

`render` shows everything (it is for the operator and debugging, like a
snapshot); bots and spectators get `views.py` instead.
"""

from __future__ import annotations

from arena.games.edel_stein_reich import rules
from arena.games.edel_stein_reich.components import COLOURS, LETTER_INDEX

ACTION_WORDS = {"money": "Money", "event": "Event", "gems": "Gems", "free": "Free Choice"}


def gems_text(gems) -> str:
    parts = [f"{k} {COLOURS[c]}" for c, k in enumerate(gems) if k]
    return ", ".join(parts) if parts else "no gems"


def render(st) -> str:
    comp = st.comp
    lines = [
        f"Edel, Stein & Reich — phase {st.phase_no + 1}/3, round {st.round_no + 1}, "
        f"step {st.step}, {st.phase}" + (f" (seat {st.actor} to act)" if st.actor >= 0 else ""),
        "supply: " + " ".join(f"{COLOURS[c]} {st.supply[c]}" for c in range(4)),
    ]
    for s in range(st.n):
        card = st.gem_card[s]
        card_text = ""
        if card >= 0:
            gc = comp.gem_cards[card]
            card_text = f"  card {gc.id}: {gc.money}M + {gems_text(gc.gems)}"
        choice = ""
        if st.commits[s] >= 0:
            choice = "  chose " + ACTION_WORDS[rules.ACTION_NAMES[st.commits[s]]]
        held = ", ".join(comp.event_kinds[c].id for c in st.held[s])
        lines.append(
            f"seat {s}: {st.money[s]:>3}M  "
            + " ".join(f"{COLOURS[c][0].upper()}{st.gems[s][c]:<2}" for c in range(4))
            + card_text
            + choice
            + (f"  holds {held}" if held else "")
        )
    offered = comp.event_kinds[st.offered].name if st.offered >= 0 else "none"
    lines.append(
        f"offered event: {offered}; event deck {len(st.ev_deck)}, discard {len(st.ev_discard)}; "
        f"gem deck {len(st.gem_deck)}"
    )
    if st.phase == rules.BARGAIN:
        o, other = st.bar_seats
        maker = st.bar_maker
        lines.append(
            f"bargaining for {ACTION_WORDS[rules.ACTION_NAMES[st.bar_action]]}: "
            f"seats {o} (opener) and {other}; standing offer "
            + (f"{gems_text(st.bar_standing)} by seat {maker}" if maker >= 0 else "none")
            + (_raise_so_far(st) if st.bar_build else "")
        )
    if st.pending_ev >= 0:
        lines.append(f"resolving event: {comp.event_kinds[st.pending_ev].name}")
    if st.phase == rules.OVER:
        out = st.outcome()
        lines.append(f"game over ({out.reason}); ranks {list(out.ranks)}")
    return "\n".join(lines)


def _raise_so_far(st) -> str:
    """The raise being announced colour by colour (red first), in words."""
    named = ", ".join(f"{k} {COLOURS[c]}" for c, k in enumerate(st.bar_build) if k) or "nothing"
    seat = st.to_act()[0]
    return f"; seat {seat} is announcing a raise: {named} so far, {COLOURS[len(st.bar_build)]} next"


def _raise_completed(st, seat: int, action: str) -> tuple[int, ...] | None:
    """The whole raise when this colour's count completes it, else None.

    Not always the blue count: the engine fills in the colours after it whose
    count is forced, so the raise is read from what applying the action logs
    (on a copy: the caller applies it)."""
    after = st.clone()
    try:
        after.apply(seat, action)
    except ValueError:  # illegal: the caller's own apply says so
        return None
    # a forced accept may end the round, which moves its log to prev_log
    same_round = (after.phase_no, after.round_no) == (st.phase_no, st.round_no)
    for entry in (after.log if same_round else after.prev_log)[len(st.log) :]:
        if entry[0] == "offer":
            return entry[2]
    return None


def describe(st, seat: int, action: str) -> str:
    """The action in words, as seen just before it is applied."""
    head, _, arg = action.partition(" ")
    who = f"seat {seat}"
    comp = st.comp
    if head == "play":
        return f"{who} chooses the {ACTION_WORDS.get(arg, arg)} action card"
    if head == "offer" and arg:
        # a raise is announced one colour at a time (docs/games/edel-stein-reich.md),
        # so most of its steps add none of a colour: "puts 0 green" read as a number lost
        c = LETTER_INDEX.get(arg[0], 0)
        count = "no" if arg[1:] == "0" else arg[1:]
        put = f"{who} puts {count} {COLOURS[c]} into the offer"
        whole = _raise_completed(st, seat, action)
        if whole is None:
            return put
        # the words of the replay viewer's log line for the offer (static/js/replay_edel_stein_reich.js)
        verb = "raises to" if st.bar_maker >= 0 else "offers"
        return f"{put} and {verb} {gems_text(whole)}"
    if head == "accept":
        what = ACTION_WORDS[rules.ACTION_NAMES[st.bar_action]] if st.bar_action >= 0 else ""
        return (
            f"{who} accepts {gems_text(st.bar_standing)} from seat {st.bar_maker} "
            f"and gives up the {what} action"
        )
    if head == "take":
        name = comp.event_kinds[st.offered].name if st.offered >= 0 else "?"
        return f"{who} takes the offered event card {name}"
    if head == "blind":
        return f"{who} discards the offered event and draws the top event card unseen"
    if head in ("apply", "decline"):
        name = comp.event_kinds[st.pending_ev].name if st.pending_ev >= 0 else "the event"
        return f"{who} {'applies' if head == 'apply' else 'declines'} {name}"
    if head in ("pick", "return", "give") and arg in LETTER_INDEX:
        colour = COLOURS[LETTER_INDEX[arg]]
        if head == "pick":
            return f"{who} takes 1 {colour} from the supply"
        if head == "return":
            return f"{who} returns 1 {colour} to the supply"
        return f"{who} gives 1 {colour} to seat {st.tribute_to}"
    if head == "swap":
        parts = arg.split(" ")
        if len(parts) == 3 and parts[1] in LETTER_INDEX and parts[2] in LETTER_INDEX:
            give, take = COLOURS[LETTER_INDEX[parts[1]]], COLOURS[LETTER_INDEX[parts[2]]]
            return f"{who} gives 1 {give} to seat {parts[0]} and takes 1 {take} from them"
    return f"{who}: {action}"
