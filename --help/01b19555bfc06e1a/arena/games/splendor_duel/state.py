"""The state of one Splendor Duel game and its legal actions.

Layout chosen for speed (bots search with the engine): per-seat counters
live in flat lists (`tokens[seat * 7 + type]`, `bonus[seat * 5 + colour]`),
things that change rarely (decks, purchased and reserved cards, royal cards,
pending effects) are tuples replaced on change and shared between clones, and
the legal list is computed once per position and cached.

Transitions live in rules.py, views and snapshots in views.py, the text
picture in render.py.
"""

from __future__ import annotations

from typing import Any

from arena.engine import GameState, IllegalAction, MalformedAction, Outcome
from arena.games.splendor_duel import actions as A
from arena.games.splendor_duel import invariants, render, rules, views
from arena.games.splendor_duel.board import CELLS_BY_NAME, mask_cells
from arena.games.splendor_duel.cards import (
    CARD_COST,
    EMPTY,
    GEMS_BY_NAME,
    GOLD,
    NON_GOLD_BY_NAME,
    TOKENS_BY_NAME,
)
from arena.rng import Rng

GAME_ID = "splendor-duel"
#: bumped whenever a rule decision changes what a recorded game does
RULES_VERSION = "1.0"

# phases (one decision each); names as shown in views
MAIN, COPY, MATCH, STEAL, ROYAL, DISCARD, OVER = range(7)
PHASE_NAMES = ("main", "copy", "match", "steal", "royal", "discard", "over")
MAX_RESERVED = 3  # RULES.md §7.2


class SplendorDuelState(GameState):
    game_id = GAME_ID
    rules_version = RULES_VERSION

    __slots__ = (
        "board",  # 25 token types or EMPTY, row-major
        "takeable",  # mask of cells holding a non-gold token (bits: board.BIT)
        "gold_mask",  # mask of cells holding gold
        "bag",  # 7 counts (derivable, kept for speed)
        "tokens",  # 14 counts: seat * 7 + token type
        "bonus",  # 10: seat * 5 + gem colour (gem cards + placed copy cards)
        "colour_points",  # 10: points grouped under each colour (§1)
        "prestige",  # [p0, p1]: jewel + royal card points
        "crowns",  # [c0, c1]
        "privileges",  # [p0, p1]; the supply holds the rest of 3
        "cards",  # (tuple, tuple): purchased card numbers per seat
        "copies",  # tuple of (card, colour) for placed copy-colour cards
        "reserved",  # (tuple, tuple): reserved card numbers per seat
        "blind",  # tuple of card numbers reserved from a deck (hidden, §10)
        "pyramid",  # 12 slots: card number or EMPTY
        "decks",  # (tuple, tuple, tuple): per level, top card last
        "royals",  # tuple of royal numbers still available
        "royals_owned",  # (tuple, tuple)
        "active",
        "phase",
        "pending",  # tuple of (kind, arg) effects still to resolve (§8)
        "replenished",  # replenished this turn (§3: no privileges after it)
        "play_again",
        "step_count",
        "turn",
        "first_seat",
        "step_cap",
        "options",
        "rng",
        "result",
        "_legal",
    )

    # -- engine contract ---------------------------------------------------------
    @property
    def seat_count(self) -> int:
        return 2

    @property
    def step(self) -> int:
        return self.step_count

    def to_act(self) -> list[int]:
        return [] if self.result is not None else [self.active]

    def is_over(self) -> bool:
        return self.result is not None

    def outcome(self) -> Outcome | None:
        return self.result

    def legal_actions(self, seat: int) -> list[str]:
        if self.result is not None or seat != self.active:
            return []
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal[:]  # a copy: callers may keep or change it

    def apply(self, seat: int, action: str) -> None:
        decoded = A.DECODE.get(action) if isinstance(action, str) else None
        if decoded is None:
            raise MalformedAction(f"not a {GAME_ID} action: {action!r}")
        if self.result is not None:
            raise IllegalAction(f"{action!r}: the game is over")
        if seat != self.active:
            raise IllegalAction(f"{action!r}: seat {seat} is not to act")
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        if action not in legal:
            raise IllegalAction(f"{action!r} is not legal now ({PHASE_NAMES[self.phase]} phase)")
        rules.HANDLERS[decoded[0]](self, decoded)
        self._legal = None
        self.step_count += 1
        if self.result is None and self.step_count >= self.step_cap:
            rules.end_by_step_cap(self)

    def clone(self) -> SplendorDuelState:
        c = object.__new__(SplendorDuelState)
        c.board = self.board[:]
        c.takeable = self.takeable
        c.gold_mask = self.gold_mask
        c.bag = self.bag[:]
        c.tokens = self.tokens[:]
        c.bonus = self.bonus[:]
        c.colour_points = self.colour_points[:]
        c.prestige = self.prestige[:]
        c.crowns = self.crowns[:]
        c.privileges = self.privileges[:]
        c.pyramid = self.pyramid[:]
        c.cards = self.cards
        c.copies = self.copies
        c.reserved = self.reserved
        c.blind = self.blind
        c.decks = self.decks
        c.royals = self.royals
        c.royals_owned = self.royals_owned
        c.active = self.active
        c.phase = self.phase
        c.pending = self.pending
        c.replenished = self.replenished
        c.play_again = self.play_again
        c.step_count = self.step_count
        c.turn = self.turn
        c.first_seat = self.first_seat
        c.step_cap = self.step_cap
        c.options = self.options
        c.rng = Rng(self.rng.state)
        c.result = self.result
        c._legal = self._legal  # never mutated in place, so shared safely
        return c

    def observation(self, seat: int) -> dict[str, Any]:
        return views.observation(self, seat)

    def spectator_view(self) -> dict[str, Any]:
        return views.observation(self, None)

    def snapshot(self) -> dict[str, Any]:
        return views.snapshot(self)

    def render(self) -> str:
        return render.render(self)

    def describe_action(self, seat: int, action: str) -> str:
        return render.describe(self, seat, action)

    def check_invariants(self) -> None:
        """RULES.md §12, raised as AssertionError (hook of the conformance test)."""
        invariants.check_invariants(self)

    # -- legal actions -----------------------------------------------------------
    def _compute_legal(self) -> list[str]:
        phase = self.phase
        if phase == MAIN:
            return self._main_actions()
        seat = self.active
        if phase == DISCARD:
            base = seat * 7
            tokens = self.tokens
            return [A.DISCARD_TEXT[t] for t in TOKENS_BY_NAME if tokens[base + t]]
        if phase == COPY:
            # §8.2: a colour of a gem card the player owns; copy cards only
            # ever sit on such colours, so a positive bonus means one exists.
            bonus = self.bonus
            return [A.COPY_TEXT[c] for c in GEMS_BY_NAME if bonus[seat * 5 + c]]
        if phase == MATCH:
            colour = self.pending[0][1]
            board = self.board
            return [A.MATCH_TEXT[c] for c in CELLS_BY_NAME if board[c] == colour]
        if phase == STEAL:
            base = (1 - seat) * 7
            tokens = self.tokens
            return [A.STEAL_TEXT[t] for t in NON_GOLD_BY_NAME if tokens[base + t]]
        if phase == ROYAL:
            return [A.ROYAL_TEXT[r] for r in self.royals]
        return []

    def _main_actions(self) -> list[str]:
        """§3 steps 1–3: optional privileges and replenish, then the mandatory action.

        Category lists are each in string order and concatenated in the
        string order of their first words: buy < pass < priv < replenish <
        reserve < take, so the result is sorted without sorting.
        """
        seat = self.active
        takeable = self.takeable
        takes = A.take_actions(takeable)
        buys = self._buy_actions(seat)

        reserves: list[str] = []
        reserved = self.reserved[seat]
        if self.gold_mask and len(reserved) < MAX_RESERVED:
            # §7.2; §11 rows 9–12: needs a gold on the board and a card to take
            visible = sorted(card for card in self.pyramid if card >= 0)
            decks = [lv - 1 for lv in (1, 2, 3) if self.decks[lv - 1]]
            for c in mask_cells(self.gold_mask):
                row = A.RESERVE_TEXT[c]
                reserves.extend([row[card] for card in visible])
                deck_row = A.RESERVE_DECK_TEXT[c]
                reserves.extend([deck_row[i] for i in decks])

        privs: list[str] = []
        if self.privileges[seat] and not self.replenished:
            # §5: any non-gold token, no adjacency; §11 row 5: not after replenishing
            privs = A.priv_actions(takeable)
        can_replenish = not self.replenished and any(self.bag)  # §6, §11 row 6

        if buys or takes or reserves:
            out = buys
            out.extend(privs)
            if can_replenish:
                out.append(A.REPLENISH_TEXT)
            out.extend(reserves)
            out.extend(takes)
            return out
        # No take means no non-gold token on the board, so no privilege either.
        if can_replenish:  # §7.4, §11 row 7: the replenish is forced
            return [A.REPLENISH_TEXT]
        # §11 row 8 [ENG]: nothing possible and no replenish: skip the action
        return [A.PASS_TEXT]

    def _buy_actions(self, seat: int) -> list[str]:
        """§7.3: pyramid and own reserved cards, one action per gold allocation."""
        base = seat * 7
        tokens = self.tokens
        gold = tokens[base + GOLD]
        tw, tb, tg, tr, tk, tp = tokens[base : base + 6]
        b = seat * 5
        bw, bb, bg, br, bk = self.bonus[b : b + 5]
        d = A.DEFICIT  # see actions.py: every card's shortfall in one number
        short = d[0][bw + tw] + d[1][bb + tb] + d[2][bg + tg] + d[3][br + tr] + d[4][bk + tk]
        short += d[5][tp]
        if not (bw or bb or bg or br or bk):
            short += A.JOKER_BLOCK
        shortfall = short.to_bytes(A.PACKED_BYTES, "little")  # shortfall[card]
        ok = [c for c in self.pyramid if c >= 0 and shortfall[c] <= gold]
        ok.extend([c for c in self.reserved[seat] if shortfall[c] <= gold])
        ok.sort()
        if gold == 0:  # one way to pay each (§11 row 19: maybe for free)
            return [A.BUY_TEXT[card] for card in ok]
        out: list[str] = []
        for card in ok:
            cw, cb, cg, cr, ck, pp = CARD_COST[card]
            # §7.3: bonuses lower gem prices, never below zero; pearls never
            pw = cw - bw if cw > bw else 0
            pb = cb - bb if cb > bb else 0
            pg = cg - bg if cg > bg else 0
            pr = cr - br if cr > br else 0
            pk = ck - bk if ck > bk else 0
            price = (pw, pb, pg, pr, pk, pp)
            if price == A.NO_GOLD:
                out.append(A.BUY_TEXT[card])  # free: one way to pay
                continue
            have = (
                tw if tw < pw else pw,
                tb if tb < pb else pb,
                tg if tg < pg else pg,
                tr if tr < pr else pr,
                tk if tk < pk else pk,
                tp if tp < pp else pp,
            )
            out.extend(A.payment_actions(card, price, have, gold))
        return out


def empty_state() -> SplendorDuelState:
    """A blank state for the setup and restore code to fill in."""
    s = object.__new__(SplendorDuelState)
    s.board = [EMPTY] * 25
    s.takeable = 0
    s.gold_mask = 0
    s.bag = [0] * 7
    s.tokens = [0] * 14
    s.bonus = [0] * 10
    s.colour_points = [0] * 10
    s.prestige = [0, 0]
    s.crowns = [0, 0]
    s.privileges = [0, 0]
    s.cards = ((), ())
    s.copies = ()
    s.reserved = ((), ())
    s.blind = ()
    s.pyramid = [EMPTY] * 12
    s.decks = ((), (), ())
    s.royals = ()
    s.royals_owned = ((), ())
    s.active = 0
    s.phase = MAIN
    s.pending = ()
    s.replenished = False
    s.play_again = False
    s.step_count = 0
    s.turn = 1
    s.first_seat = 0
    s.step_cap = 0
    s.options = {}
    s.rng = Rng(0)
    s.result = None
    s._legal = None
    return s
