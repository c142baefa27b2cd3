"""A full state from one seat's observation (a *determinization*), for search.

`GAME.determinize(observation, seed, options)` (docs/games/edel-stein-reich.md,
"Search in a bot") rebuilds everything the observation shows and samples what
it hides, uniformly among the possibilities consistent with it, from `seed`:

- the order of the event deck (its contents are known: every card not seen
  elsewhere);
- which unseen gem cards lie in the gem deck and which are set aside, and the
  deck's order (all of them came from one shuffle, so they are exchangeable);
- the choices of the other seats that have chosen but are not revealed yet
  (each one of the seat's legal commit actions);
- the random generator of the state (so reshuffles to come are sampled too).

The others' money, when `money_visible` hides it, has no finite set of
possibilities to sample from (the bank is unlimited); it is *estimated* as
documented on `_hidden_money`, unless the caller passes its own figures.

Every internal field the rules need is derived from what the observation
shows (the pick and tribute queues from the round log, the bargain from
`bargain`, the action being resolved from `resolving`); the result is checked
with `check_invariants()` and by comparing its observation with the given one,
so nothing inconsistent is ever returned: SnapshotError says what is wrong.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from arena.engine import EngineError, SnapshotError
from arena.games.edel_stein_reich import actions, rules
from arena.games.edel_stein_reich.bargaining import size_value
from arena.games.edel_stein_reich.components import COLOURS, Components
from arena.games.edel_stein_reich.state import COMMIT_ACTIONS, GAME_ID, EsrState
from arena.rng import Rng

PHASES = (
    rules.COMMIT,
    rules.BARGAIN,
    rules.OVER,
    actions.EVENT_CHOICE,
    actions.IMMEDIATE,
    actions.PICK,
    actions.RETURN,
    actions.SWAP,
    actions.TRIBUTE,
)


def determinize(
    game: Any,
    observation: Any,
    seed: int,
    options: Mapping[str, Any] | None = None,
    money: Sequence[int | None] | None = None,
) -> EsrState:
    """A state whose `observation(seat)` equals `observation`; see the module doc."""
    if not isinstance(observation, Mapping) or observation.get("game") != GAME_ID:
        raise SnapshotError(f"not an observation of {GAME_ID}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise SnapshotError(f"the seed must be an integer, got {seed!r}")
    seats = observation.get("seats")
    if seats not in game.seat_counts or isinstance(seats, bool):
        raise SnapshotError(f"bad {GAME_ID} observation: seats {seats!r}")
    clean = game.validate_options(options)  # OptionError names a bad option
    comp = game._components(clean, seats)
    try:
        st = _Builder(comp, clean, observation, seed, game.step_cap).build(money)
    except _Impossible as exc:
        raise SnapshotError(f"impossible {GAME_ID} observation: {exc}") from None
    except EngineError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError) as exc:
        raise SnapshotError(f"bad {GAME_ID} observation: {type(exc).__name__}: {exc}") from None
    try:
        st.check_invariants()
    except (AssertionError, IndexError, KeyError, TypeError, ValueError) as exc:
        raise SnapshotError(f"impossible {GAME_ID} observation: {exc}") from None
    seat = observation["seat"]
    rebuilt = st.observation(seat)
    if rebuilt != observation:
        keys = sorted(set(rebuilt) | set(observation))
        key = next(k for k in keys if rebuilt.get(k, KeyError) != observation.get(k, KeyError))
        raise SnapshotError(
            f"impossible {GAME_ID} observation for these options: {key!r} cannot be "
            f"{observation.get(key)!r} (the nearest state shows {rebuilt.get(key)!r})"
        )
    return st


def _action_name(action: int) -> str:
    return rules.ACTION_NAMES[action]


class _Impossible(ValueError):
    """Well-formed, but no state of these options shows it."""


def _int(value: Any, lo: int = 0, hi: int = 1 << 62) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f"expected an integer in {lo}..{hi}, got {value!r}")
    return value


def _index(names: Sequence[str], value: Any) -> int:
    if value not in names:
        raise ValueError(f"expected one of {', '.join(names)}, got {value!r}")
    return names.index(value)


class _Builder:
    def __init__(
        self,
        comp: Components,
        options: dict[str, Any],
        obs: Mapping[str, Any],
        seed: int,
        step_cap: int,
    ) -> None:
        self.comp = comp
        self.options = options
        self.obs = obs
        self.n = obs["seats"]
        self.sampler = Rng(seed)
        self.step_cap = step_cap
        self.kinds = {kind.id: k for k, kind in enumerate(comp.event_kinds)}

    # -- small parsers ------------------------------------------------------------

    def seat(self, value: Any) -> int:
        return _int(value, 0, self.n - 1)

    def gems(self, value: Any) -> tuple[int, int, int, int]:
        if not isinstance(value, Mapping) or not set(value) <= set(COLOURS):
            raise ValueError(f"expected an object of colour counts, got {value!r}")
        r, y, g, b = (_int(value.get(c, 0), 0, self.comp.gems_per_colour) for c in COLOURS)
        return (r, y, g, b)

    def kind(self, card_id: Any) -> int:
        if card_id not in self.kinds:
            raise ValueError(f"no event card {card_id!r} in this match's components")
        return self.kinds[card_id]

    def action(self, name: Any) -> int:
        return _index(rules.ACTION_NAMES, name)

    def colour(self, name: Any) -> int:
        return _index(COLOURS, name)

    def log_entry(self, e: Mapping[str, Any]) -> tuple:
        """The inverse of `views.log_entry`."""
        t = e["type"]
        seat, card, colour = self.seat, self.kind, self.colour
        if t == "reveal":
            return (t, tuple(self.action(a) for a in e["choices"]))
        if t in ("lost", "void"):
            return (t, self.action(e["action"]), tuple(seat(s) for s in e["seats"]))
        if t == "perform":
            return (t, self.action(e["action"]), seat(e["seat"]))
        if t in ("gain", "offer"):
            return (t, seat(e["seat"]), self.gems(e["gems"]))
        if t == "reshuffle":
            return (t, _int(e["event_deck_size"]))
        if t == "no_event":
            return (t, seat(e["seat"]))
        if t in ("take", "blind", "apply", "decline"):
            return (t, seat(e["seat"]), card(e["card"]))
        if t in ("pick", "return"):
            return (t, seat(e["seat"]), colour(e["colour"]))
        if t == "swap":
            return (t, seat(e["seat"]), seat(e["with"]), colour(e["gave"]), colour(e["took"]))
        if t == "give":
            return (t, seat(e["seat"]), seat(e["to"]), colour(e["colour"]))
        if t == "free_shared":
            return (t, tuple(seat(s) for s in e["order"]))
        if t == "accept":
            maker, gems = seat(e["maker"]), self.gems(e["gems"])
            return (t, seat(e["seat"]), maker, gems, seat(e["winner"]))
        if t == "majority":
            seats = tuple(seat(s) for s in e["seats"])
            return (t, colour(e["colour"]), seats, _int(e["money_each"]), _int(e["returned_each"]))
        if t == "bonus":
            return (t, seat(e["seat"]), card(e["card"]), _int(e["money"]))
        if t == "certificates":
            return (t, seat(e["seat"]), _int(e["count"]), _int(e["money"]))
        if t == "scored":
            return (t, _int(e["phase"], 1, rules.PHASES))
        raise ValueError(f"unknown log entry type {t!r}")

    # -- the state ----------------------------------------------------------------

    def build(self, money: Sequence[int | None] | None) -> EsrState:
        obs, n, comp = self.obs, self.n, self.comp
        seat = obs["seat"]
        if seat is None:
            raise SnapshotError(
                f"a {GAME_ID} spectator view: determinize needs a seat's observation"
            )
        self.seat(seat)
        players = obs["players"]
        if not isinstance(players, list) or len(players) != n:
            raise ValueError(f"expected {n} players")
        st = object.__new__(EsrState)
        st.n, st.comp, st.options = n, comp, self.options
        st.barter_winner = self.options["barter_winner"]
        st.step_cap = self.step_cap
        st.step = _int(obs["step"])
        st.phase = phase = obs["phase"]
        if phase not in PHASES:
            raise ValueError(f"unknown phase {phase!r}")
        if phase != rules.OVER and st.step >= self.step_cap:
            raise _Impossible(f"step {st.step} is past the step cap but the game is not over")
        st.phase_no = _int(obs["phase_number"], 1, rules.PHASES) - 1
        st.round_no = _int(obs["round"], 1) - 1
        st.gems = [list(self.gems(p["gems"])) for p in players]
        st.supply = list(self.gems(obs["supply"]))
        st.log = [self.log_entry(e) for e in obs["log"]]
        st.prev_log = [self.log_entry(e) for e in obs["previous_log"]]
        self._events(st, players)
        self._gem_cards(st, players)
        self._choices(st, players, seat)
        self._decision(st)
        self._check_decision(st)
        st.money = self._money(st, players, seat, money)
        st.bank_paid = sum(st.money)
        outcome = obs["outcome"]
        st.end_reason = str(outcome["reason"]) if phase == rules.OVER and outcome else ""
        # the state's own generator: every reshuffle to come is sampled too
        st.rng = Rng(self.sampler.next_u64())
        st._legal = None
        return st

    def _events(self, st: EsrState, players: list) -> None:
        """Known event cards where the observation shows them; the rest is the deck."""
        obs = self.obs
        st.held = [[self.kind(c) for c in p["held_events"]] for p in players]
        st.ev_discard = [self.kind(c) for c in obs["event_discard"]]
        shown = obs["offered_event"], obs["pending_event"]
        st.offered, st.pending_ev = (-1 if c is None else self.kind(c["id"]) for c in shown)
        left = Counter(self.comp.event_deck)
        seen = st.ev_discard + [c for h in st.held for c in h]
        left.subtract(seen + [c for c in (st.offered, st.pending_ev) if c >= 0])
        extra = [self.comp.event_kinds[k].id for k, v in left.items() if v < 0]
        if extra:
            raise _Impossible(f"more {extra[0]!r} event cards shown than the deck holds")
        deck = list(left.elements())
        if len(deck) != obs["event_deck_size"]:
            raise _Impossible(
                f"event_deck_size is {obs['event_deck_size']!r} but {len(deck)} event "
                "cards are not shown anywhere"
            )
        self.sampler.shuffle(deck)
        st.ev_deck = deck

    def _gem_cards(self, st: EsrState, players: list) -> None:
        """The seats' and discarded gem cards as shown; the unseen ones are shuffled
        and split between the set-aside pile and the gem deck."""
        obs, cards = self.obs, self.comp.gem_cards
        pool = list(range(len(cards)))

        def take(matches) -> int:
            found = [i for i in pool if matches(cards[i])]
            if not found:
                raise _Impossible("a gem card is shown more often than it exists")
            card = found[self.sampler.below(len(found))] if len(found) > 1 else found[0]
            pool.remove(card)
            return card

        st.gem_card = [
            -1 if p["gem_card"] is None else take(lambda c, j=p["gem_card"]: c.to_json() == j)
            for p in players
        ]
        st.gem_discard = [take(lambda c, i=card_id: c.id == i) for card_id in obs["gem_discard"]]
        top_id = obs["set_aside_top"]
        top = [] if top_id is None else [take(lambda c: c.id == top_id)]
        aside = _int(obs["set_aside_count"]) - len(top)
        deck_size = _int(obs["gem_deck_size"])
        if aside < 0 or aside + deck_size != len(pool):
            raise _Impossible(
                f"{len(pool)} gem cards are unseen, but gem_deck_size is {deck_size} and "
                f"set_aside_count {obs['set_aside_count']}"
            )
        self.sampler.shuffle(pool)
        st.set_aside = pool[:aside] + top
        st.gem_deck = pool[aside:]

    def _choices(self, st: EsrState, players: list, seat: int) -> None:
        """Revealed choices as shown; a hidden one is any of the seat's commit actions."""
        obs, n = self.obs, self.n
        st.revealed = obs["choices"] is not None
        if st.revealed:
            st.commits = [self.action(a) for a in obs["choices"]]
            if len(st.commits) != n:
                raise ValueError(f"expected {n} choices")
            return
        playable = [a.removeprefix("play ") for a in COMMIT_ACTIONS[n]]
        st.commits = [-1] * n
        for s, p in enumerate(players):
            if p["has_chosen"] is not True:
                continue
            if s == seat:
                st.commits[s] = self.action(obs["my_choice"])
            else:
                st.commits[s] = self.action(playable[self.sampler.below(len(playable))])

    def _decision(self, st: EsrState) -> None:
        """The open decision and the bookkeeping the rules keep for it."""
        obs, n, phase = self.obs, self.n, st.phase
        to_act = obs["to_act"]
        st.actor = -1
        if phase not in (rules.COMMIT, rules.OVER):
            if not isinstance(to_act, list) or len(to_act) != 1:
                raise ValueError(f"phase {phase} has one seat to act, not {to_act!r}")
            st.actor = self.seat(to_act[0])
        resolving = obs["resolving"]
        st.res_idx = 0 if resolving is None else self.action(resolving)
        st.bar_action, st.bar_seats, st.bar_maker = -1, (), -1
        st.bar_standing, st.bar_size, st.bar_value, st.bar_build = (0, 0, 0, 0), 0, 0, []
        bargain = obs["bargain"]
        if phase == rules.BARGAIN:
            st.bar_action = self.action(bargain["action"])
            st.bar_seats = (self.seat(bargain["opener"]), self.seat(bargain["other"]))
            maker = bargain["standing"]["maker"]
            st.bar_maker = -1 if maker is None else self.seat(maker)
            st.bar_standing = self.gems(bargain["standing"]["gems"])
            st.bar_size, st.bar_value = size_value(st.bar_standing, self.comp.barter_value)
            building = bargain["building"]
            if list(building) != list(COLOURS[: len(building)]):
                raise ValueError(f"bargain.building: expected colours in order, got {building!r}")
            st.bar_build = [_int(k) for k in building.values()]
        st.pick_left, st.pick_queue, st.pick_ctx, st.pick_ban = 0, [], "", -1
        if phase == actions.RETURN:  # Free Choice alone: return one, then pick two (§7.4)
            st.pick_left, st.pick_ctx = 2, "free"
        elif phase == actions.PICK:
            st.pick_left = _int(obs["picks_left"], 1)
            st.pick_ctx = "free" if st.res_idx == rules.FREE else "event"
            if st.pick_ctx == "free":
                shared = [e[1] for e in st.log if e[0] == "free_shared"]
                if shared:  # the seats after the picking one, in priority order
                    order = list(shared[-1])
                    st.pick_queue = order[order.index(st.actor) + 1 :]
                elif not self.options["free_choice_same_colour"]:
                    returned = [e[2] for e in st.log if e[0] == "return"]
                    st.pick_ban = returned[-1] if returned else -1
        st.tribute_to, st.tribute_queue = -1, []
        if phase == actions.TRIBUTE:  # victims in seat order from the taker's left
            st.tribute_to = self.seat(obs["tribute_to"])
            order = [(st.tribute_to + i) % n for i in range(1, n)]
            st.tribute_queue = order[order.index(st.actor) + 1 :]

    def _check_decision(self, st: EsrState) -> None:
        """The open decision fits the card being resolved (what the invariants
        do not cover: a state that passed them could still not play on)."""
        phase, pending = st.phase, st.pending_ev
        if phase == rules.OVER:
            return  # a game stopped by the step cap stops wherever it is
        op = self.comp.event_kinds[pending].op if pending >= 0 else None
        wants = {
            actions.IMMEDIATE: "immediate",
            actions.SWAP: "swap_one_gem_with_player",
            actions.TRIBUTE: "each_opponent_gives_one_gem_of_their_choice",
        }
        if phase == actions.PICK and st.pick_ctx == "event":
            wants[phase] = "gain_any_gems"
        want = wants.get(phase)
        if want is None and pending >= 0:
            raise _Impossible(f"an event card is pending in phase {phase}")
        if want == "immediate":
            if pending < 0 or self.comp.event_kinds[pending].kind != "immediate":
                raise _Impossible(f"phase {phase} needs an immediate event card pending")
        elif want is not None and op != want:
            raise _Impossible(f"phase {phase} needs a pending {want} card, not {op}")
        action = {
            actions.EVENT_CHOICE: rules.EVENT,
            actions.IMMEDIATE: rules.EVENT,
            actions.SWAP: rules.EVENT,
            actions.TRIBUTE: rules.EVENT,
            actions.RETURN: rules.FREE,
            actions.PICK: rules.FREE if st.pick_ctx == "free" else rules.EVENT,
            rules.BARGAIN: st.bar_action,
        }.get(phase)
        if action is not None and st.res_idx != action:
            raise _Impossible(f"phase {phase} while {_action_name(st.res_idx)} is resolved")
        if phase == rules.BARGAIN:
            o, other = st.bar_seats
            if o == other or st.actor not in st.bar_seats or st.bar_action == rules.FREE:
                raise _Impossible("a bargain needs two seats, the one to act among them")
            if st.bar_maker not in (-1, o, other) or (st.bar_maker == st.actor):
                raise _Impossible("the standing offer's maker is not the other bargaining seat")
        if phase == actions.TRIBUTE and st.actor == st.tribute_to:
            raise _Impossible("a seat cannot pay tribute to itself")

    def _money(
        self, st: EsrState, players: list, seat: int, given: Sequence[int | None] | None
    ) -> list[int]:
        n = self.n
        if given is not None and (isinstance(given, (str, bytes)) or len(given) != n):
            raise _Impossible(f"money: expected a list of {n} entries (int or None)")
        outcome = self.obs["outcome"]
        final = None
        if st.phase == rules.OVER and isinstance(outcome, Mapping):
            # the final scores are the money (§11), shown to everyone at the end
            final = [_int(int(m)) if m == int(m) else _int(m) for m in outcome["scores"]]
        out: list[int] = []
        for s, p in enumerate(players):
            shown = p["money"]
            wanted = None if given is None else given[s]
            if wanted is not None and (
                isinstance(wanted, bool) or not isinstance(wanted, int) or wanted < 0
            ):
                raise _Impossible(f"money[{s}]: expected an integer >= 0 or None, got {wanted!r}")
            if shown is not None:
                if wanted is not None and wanted != shown:
                    raise _Impossible(f"money[{s}] is {wanted}, the observation shows {shown}")
                out.append(_int(shown))
            elif wanted is not None:
                out.append(wanted)
            elif final is not None:
                out.append(final[s])
            else:
                out.append(-1)  # estimated below
        if -1 in out:
            estimate = _hidden_money(st, players[seat]["money"])
            out = [estimate[s] if m < 0 else m for s, m in enumerate(out)]
        return out


def _hidden_money(st: EsrState, own: int | None) -> list[int]:
    """The estimate of a hidden seat's money: the larger of the asking seat's
    own money and what the seat has been paid in the two rounds of log the
    observation shows, plus the starting money (money never decreases, so that
    is a lower bound)."""
    comp, n = st.comp, st.n
    floor = [comp.start_money] * n
    previous = st.gem_discard[-n:] if st.round_no > 0 else None  # last round's cards
    for entries, cards in ((st.log, st.gem_card), (st.prev_log, previous)):
        for e in entries:
            kind = e[0]
            if kind == "perform" and e[1] == rules.MONEY and cards and cards[e[2]] >= 0:
                floor[e[2]] += comp.gem_cards[cards[e[2]]].money
            elif kind == "apply" and comp.event_kinds[e[2]].op == "gain_money":
                floor[e[1]] += comp.event_kinds[e[2]].amount
            elif kind == "majority":
                for s in e[2]:
                    floor[s] += e[3]
            elif kind in ("bonus", "certificates"):
                floor[e[1]] += e[3]
    guess = own if isinstance(own, int) and not isinstance(own, bool) else 0
    return [max(guess, f) for f in floor]
