"""The game state of Edel, Stein & Reich: who acts, legal actions, apply.

The state is mutable plain data (lists of ints) so that a random playout and
`clone()` are cheap; every rule lives in `rules.py`, `actions.py`,
`bargaining.py` and `scoring.py`. An action is validated against the legal
list before anything changes, so a rejected action leaves the state as it
was. After each action the engine carries out everything that needs no
decision, including *forced* decisions (exactly one legal action), until a
seat has a real choice to make.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from arena.engine import GameState, IllegalAction, MalformedAction, Outcome
from arena.games.edel_stein_reich import rules, scoring, views
from arena.games.edel_stein_reich.components import Components
from arena.games.edel_stein_reich.render import describe, render
from arena.rng import Rng

GAME_ID = "edel-stein-reich"
#: bump whenever a rule change would make old replays play differently
RULES_VERSION = "1"

ACTION_GRAMMAR = re.compile(
    r"play (money|event|gems|free)|offer [rygb]\d{1,2}|accept|take|blind|apply|decline"
    r"|pick [rygb]|return [rygb]|give [rygb]|swap \d [rygb] [rygb]"
)
COMMIT_ACTIONS = {
    3: ("play event", "play gems", "play money"),
    4: ("play event", "play gems", "play money"),
    5: ("play event", "play free", "play gems", "play money"),
}

#: fields holding a flat list (copied by clone, stored as-is by snapshot)
LIST_FIELDS = (
    "supply",
    "money",
    "gem_deck",
    "gem_discard",
    "set_aside",
    "gem_card",
    "ev_deck",
    "ev_discard",
    "commits",
    "bar_build",
    "pick_queue",
    "tribute_queue",
)
NESTED_FIELDS = ("gems", "held")
TUPLE_FIELDS = ("bar_seats", "bar_standing")
SCALAR_FIELDS = (
    "step",
    "phase",
    "actor",
    "phase_no",
    "round_no",
    "bank_paid",
    "offered",
    "pending_ev",
    "revealed",
    "res_idx",
    "bar_action",
    "bar_maker",
    "bar_size",
    "bar_value",
    "pick_left",
    "pick_ctx",
    "pick_ban",
    "tribute_to",
    "end_reason",
)


class EsrState(GameState):
    game_id = GAME_ID
    #: number of actions applied so far (a plain attribute, see GameState.step)
    step: int = 0

    def __init__(
        self, seats: int, seed: int, comp: Components, options: dict[str, Any], step_cap: int
    ) -> None:
        self.n = seats
        self.comp = comp
        self.options = options
        self.barter_winner = options["barter_winner"]
        self.step_cap = step_cap
        self.rng = Rng(seed)
        self.step = 0
        self.phase = rules.COMMIT
        self.actor = -1
        self.phase_no = 0
        self.round_no = 0
        self.gems = [list(comp.start_gems) for _ in range(seats)]
        self.supply = [comp.gems_per_colour - seats * k for k in comp.start_gems]
        self.money = [comp.start_money] * seats
        self.bank_paid = comp.start_money * seats
        self.gem_deck: list[int] = []
        self.gem_discard: list[int] = []
        self.set_aside: list[int] = []
        self.gem_card = [-1] * seats
        self.ev_deck = list(comp.event_deck)
        self.rng.shuffle(self.ev_deck)  # §3.6
        self.ev_discard: list[int] = []
        self.offered = -1
        self.held: list[list[int]] = [[] for _ in range(seats)]
        self.pending_ev = -1
        self.commits = [-1] * seats
        self.revealed = False
        self.res_idx = 0
        self.bar_action = -1
        self.bar_seats: tuple[int, ...] = ()
        self.bar_maker = -1
        self.bar_standing: tuple[int, ...] = (0, 0, 0, 0)
        self.bar_size = self.bar_value = 0
        self.bar_build: list[int] = []
        self.pick_left = 0
        self.pick_queue: list[int] = []
        self.pick_ctx = ""
        self.pick_ban = -1
        self.tribute_to = -1
        self.tribute_queue: list[int] = []
        self.end_reason = ""
        self.log: list[tuple] = []
        self.prev_log: list[tuple] = []
        self._legal: list[str] | None = None
        rules.start_phase(self)

    # -- the engine contract ------------------------------------------------------------

    @property
    def seat_count(self) -> int:
        return self.n

    def to_act(self) -> list[int]:
        phase = self.phase
        if phase == rules.COMMIT:
            return [s for s, a in enumerate(self.commits) if a < 0]
        if phase == rules.OVER:
            return []
        return [self.actor]

    def legal_actions(self, seat: int) -> list[str]:
        phase = self.phase
        if phase == rules.COMMIT:
            if 0 <= seat < self.n and self.commits[seat] < 0:
                return list(COMMIT_ACTIONS[self.n])
            return []
        if phase == rules.OVER or seat != self.actor:
            return []
        if self._legal is None:
            self._legal = rules.legal(self)
        return list(self._legal)

    def apply(self, seat: int, action: str) -> None:
        phase = self.phase
        if phase == rules.COMMIT:
            if not (isinstance(seat, int) and 0 <= seat < self.n) or self.commits[seat] >= 0:
                self._reject(seat, action, "has already chosen this round")
            if action not in COMMIT_ACTIONS[self.n]:
                self._reject(seat, action, "")
        else:
            if phase == rules.OVER:
                self._reject(seat, action, "cannot act: the game is over")
            if seat != self.actor:
                self._reject(seat, action, "is not to act")
            legal = self._legal
            if legal is None:
                legal = self._legal = rules.legal(self)
            if action not in legal:
                self._reject(seat, action, "")
        self._legal = None
        head, _, arg = action.partition(" ")
        if rules.HANDLERS[head](self, seat, arg):
            rules.finish_action(self)
        self.step += 1
        # Carry out forced decisions (one legal action) until a seat has a real choice.
        phase = self.phase
        while phase != rules.COMMIT and phase != rules.OVER:
            legal = rules.bargain_legal(self) if phase == rules.BARGAIN else rules.legal(self)
            if len(legal) > 1:
                self._legal = legal
                break
            rules.handle(self, self.actor, legal[0])
            phase = self.phase
        if self.step >= self.step_cap and phase != rules.OVER:
            rules.end_game(self, "step cap")

    def _reject(self, seat: Any, action: Any, why: str) -> None:
        if not isinstance(action, str) or not ACTION_GRAMMAR.fullmatch(action):
            raise MalformedAction(f"{action!r} is not an Edel, Stein & Reich action")
        if why:
            raise IllegalAction(f"seat {seat} {why}")
        raise IllegalAction(f"{action!r} is not legal for seat {seat} now ({self.phase})")

    def clone(self) -> EsrState:
        new = object.__new__(EsrState)
        d = dict(self.__dict__)
        for name in LIST_FIELDS:
            d[name] = d[name][:]
        d["gems"] = [g[:] for g in self.gems]
        d["held"] = [h[:] for h in self.held]
        d["log"] = self.log[:]
        d["rng"] = self.rng.clone()
        d["_legal"] = None
        new.__dict__ = d
        return new

    def is_over(self) -> bool:
        return self.phase == rules.OVER

    def outcome(self) -> Outcome | None:
        if self.phase != rules.OVER:
            return None
        return scoring.final_outcome(self)

    def observation(self, seat: int) -> dict[str, Any]:
        return views.observation(self, seat)

    def spectator_view(self) -> dict[str, Any]:
        return views.observation(self, None)

    def snapshot(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "game": GAME_ID,
            "version": RULES_VERSION,
            "seats": self.n,
            "options": self.options,
            "step_cap": self.step_cap,
            "rng": self.rng.state,
        }
        for name in SCALAR_FIELDS + LIST_FIELDS:
            value = getattr(self, name)
            data[name] = value[:] if isinstance(value, list) else value
        for name in NESTED_FIELDS:
            data[name] = [x[:] for x in getattr(self, name)]
        for name in TUPLE_FIELDS:
            data[name] = list(getattr(self, name))
        data["log"] = [_listify(e) for e in self.log]
        data["prev_log"] = [_listify(e) for e in self.prev_log]
        return data

    @classmethod
    def from_snapshot(
        cls, data: dict[str, Any], comp: Components, options: dict[str, Any]
    ) -> EsrState:
        new = object.__new__(cls)
        new.n = data["seats"]
        new.comp = comp
        new.options = options
        new.barter_winner = new.options["barter_winner"]
        new.step_cap = data["step_cap"]
        new.rng = Rng(data["rng"])
        # pick_ban came with the free_choice_same_colour option: a snapshot
        # taken before it has none, which always meant "no colour barred"
        data = {"pick_ban": -1, **data}
        for name in SCALAR_FIELDS:
            setattr(new, name, data[name])
        for name in LIST_FIELDS:
            setattr(new, name, [int(x) for x in data[name]])
        for name in NESTED_FIELDS:
            setattr(new, name, [[int(x) for x in row] for row in data[name]])
        for name in TUPLE_FIELDS:
            setattr(new, name, tuple(data[name]))
        new.log = [_tuplify(e) for e in data["log"]]
        new.prev_log = [_tuplify(e) for e in data["prev_log"]]
        new._legal = None
        return new

    def render(self) -> str:
        return render(self)

    def describe_action(self, seat: int, action: str) -> str:
        return describe(self, seat, action)

    def secret_action(self, seat: int, action: str) -> bool:
        # §5.3: action cards are chosen in secret; the last choice reveals them all
        return self.phase == rules.COMMIT

    # -- the conformance hook -----------------------------------------------------------------

    def check_invariants(self) -> None:
        """Game-specific invariants, called by the conformance suite after every step."""
        comp = self.comp
        for c in range(4):
            held = sum(g[c] for g in self.gems)
            assert min(g[c] for g in self.gems) >= 0 and self.supply[c] >= 0, "negative gems"
            assert held + self.supply[c] == comp.gems_per_colour, (
                f"gems of colour {c} not conserved"
            )
        assert min(self.money) >= 0, "negative money"
        assert sum(self.money) == self.bank_paid, "money paid out differs from money held"
        gem_cards = self.gem_deck + self.gem_discard + self.set_aside
        gem_cards += [c for c in self.gem_card if c >= 0]
        assert sorted(gem_cards) == list(range(len(comp.gem_cards))), "gem cards not conserved"
        events = self.ev_deck + self.ev_discard + [c for h in self.held for c in h]
        events += [c for c in (self.offered, self.pending_ev) if c >= 0]
        assert Counter(events) == Counter(comp.event_deck), "event cards not conserved"
        if self.phase == rules.COMMIT:
            # Between rounds every action card is back with its owner: nothing is
            # revealed and no resolution is half done.
            assert not self.revealed, "a finished round left its choices on the table"
            assert self.pending_ev < 0 and not self.bar_build, "a finished round left work open"
        elif self.phase == rules.OVER:
            if self.end_reason != "step cap":  # a capped game stops wherever it is
                assert all(c < 0 for c in self.commits), "action cards not returned at the end"
        else:
            assert self.revealed and 0 <= self.actor < self.n, "decision without a reveal"
            assert all(c >= 0 for c in self.commits), "decision before every seat chose"
            assert len(rules.legal(self)) > 1, "a forced decision was left to a seat"


def _listify(entry: tuple) -> list:
    return [list(x) if isinstance(x, tuple) else x for x in entry]


def _tuplify(entry: list) -> tuple:
    return tuple(tuple(x) if isinstance(x, list) else x for x in entry)
