"""Greedy Edel, Stein & Reich bot: scores every legal action by the position
it leads to, one decision ahead, with no search.

A position is worth "my money + what I would be paid if the phase were
scored now − the same for the best other seat": majorities (engine's
`scoring.majority`), held scoring-time cards and certificates included.
Action cards are valued as if the bot performed them alone; in a bargain it
compares accepting (it gets the offered gems, the other seat acts) with the
cheapest raise that beats the standing offer (it gives the gems and acts).
Numbers come from the match's components (the house values by default).
"""

from itertools import product

from gemarena_sdk import run

from arena.games.edel_stein_reich.components import COLOURS, LETTERS, parse_components
from arena.games.edel_stein_reich.loader import DEFAULT_COMPONENTS
from arena.games.edel_stein_reich.scoring import certificate_prizes, majority

comp = DEFAULT_COMPONENTS
KINDS = {kind.id: kind for kind in comp.event_kinds}
BLIND_VALUE = 3.0  # about what an unseen event card is worth
MAX_OFFERS = 4000  # offers compared per bargaining decision, at most


CERTIFICATE_TIES = "split"  # the certificate_ties option


def on_start(match):
    global comp, KINDS, CERTIFICATE_TIES
    source = match.options.get("components")
    comp = parse_components(source) if isinstance(source, dict) else DEFAULT_COMPONENTS
    KINDS = {kind.id: kind for kind in comp.event_kinds}
    CERTIFICATE_TIES = match.options.get("certificate_ties", "split")


class Pos:
    """The public facts the evaluation needs, as mutable lists."""

    def __init__(self, obs):
        self.me = obs["seat"]
        players = obs["players"]
        self.n = len(players)
        self.gems = [[p["gems"][c] for c in COLOURS] for p in players]
        self.money = [p["money"] or 0 for p in players]  # hidden money counts as 0
        self.held = [list(p["held_events"]) for p in players]
        self.cards = [p["gem_card"] for p in players]
        self.supply = [obs["supply"][c] for c in COLOURS]
        self.extra = [0.0] * self.n  # value of effects not modelled in detail

    def copy(self):
        other = Pos.__new__(Pos)
        other.me, other.n = self.me, self.n
        other.gems = [g[:] for g in self.gems]
        other.money = self.money[:]
        other.held = [h[:] for h in self.held]
        other.cards = self.cards
        other.supply = self.supply[:]
        other.extra = self.extra[:]
        return other

    def estimate(self):
        """Money per seat if the phase were scored now (§10)."""
        est = [self.money[s] + self.extra[s] for s in range(self.n)]
        paid = []
        for c in range(4):
            winners, each, _ = majority(
                [self.gems[s][c] for s in range(self.n)],
                comp.scoring_value[c],
                comp.majority_minimum,
                comp.majority_half_round_up,
                comp.majority_tie_return,
                comp.split_round_up,
            )
            paid.append(winners)
            for s in winners:
                est[s] += each
        certificates = [0] * self.n
        for s in range(self.n):
            for card in self.held[s]:
                kind = KINDS.get(card)
                if kind is None:
                    continue
                if kind.op == "certificate":
                    certificates[s] += 1
                elif kind.op == "majority_bonus" and s in paid[kind.colour]:
                    est[s] += kind.amount
        for s, prize in enumerate(
            certificate_prizes(
                certificates, comp.certificate_awards, CERTIFICATE_TIES, comp.split_round_up
            )
        ):
            est[s] += prize
        return est

    def value(self):
        est = self.estimate()
        best_other = max(est[s] for s in range(self.n) if s != self.me)
        return est[self.me] - best_other

    def gain(self, seat, gems):
        for c in range(4):
            k = min(gems[c], self.supply[c])
            self.supply[c] -= k
            self.gems[seat][c] += k

    def move(self, src, dst, gems):
        for c in range(4):
            self.gems[src][c] -= gems[c]
            self.gems[dst][c] += gems[c]

    def perform(self, seat, action, offered):
        """The seat carries out action card `action` (money, gems, event, free)."""
        card = self.cards[seat]
        if action == "money" and card:
            self.money[seat] += card["money"]
        elif action == "gems" and card:
            self.gain(seat, colour_tuple(card["gems"]))
        elif action == "event":
            self.take_event(seat, offered)
        elif action == "free":
            self.pick_best(seat, 2)

    def take_event(self, seat, event):
        if event is None:
            self.extra[seat] += BLIND_VALUE
            return
        op, params = event["op"], event.get("params") or {}
        if op in ("certificate", "majority_bonus"):
            self.held[seat].append(event["id"])
        elif op == "gain_money":
            self.money[seat] += params.get("money", 0)
        elif op == "gain_gems":
            self.gain(seat, colour_tuple(params.get("gems", {})))
        elif op == "gain_any_gems":
            self.pick_best(seat, params.get("count", 1))
        else:  # swap, tribute: a gem or two of the player's choice
            self.extra[seat] += 2.0

    def pick_best(self, seat, count):
        for _ in range(count):
            options = [c for c in range(4) if self.supply[c] > 0]
            if not options:
                return
            best = max(options, key=lambda c: self.after_gain(seat, c))
            self.gain(seat, unit(best))

    def after_gain(self, seat, colour):
        trial = self.copy()
        trial.gain(seat, unit(colour))
        est = trial.estimate()
        return est[seat] - max(est[s] for s in range(self.n) if s != seat)


def colour_tuple(gems):
    return [gems.get(c, 0) for c in COLOURS]


def unit(colour):
    gems = [0, 0, 0, 0]
    gems[colour] = 1
    return gems


def event_worth(pos, seat, event):
    trial = pos.copy()
    before = trial.value()
    trial.take_event(seat, event)
    return trial.value() - before


# -- decisions ------------------------------------------------------------------


def decide_commit(obs, legal, pos):
    offered = obs["offered_event"]
    scores = {}
    for action in legal:
        trial = pos.copy()
        trial.perform(pos.me, action.split()[1], offered)
        scores[action] = trial.value()
    return max(legal, key=lambda a: (scores[a], a))


def decide_bargain(obs, legal, pos):
    bargain = obs["bargain"]
    me = pos.me
    other = bargain["other"] if bargain["opener"] == me else bargain["opener"]
    action = bargain["action"]
    offered = obs["offered_event"]
    standing = bargain["standing"]
    building = bargain["building"] or {}
    partial = [building[c] for c in COLOURS if c in building]
    offer, raise_value = best_raise(pos, other, action, offered, standing, partial)
    if "accept" in legal:
        trial = pos.copy()
        trial.move(other, me, colour_tuple(standing["gems"]))
        trial.perform(other, action, offered)
        if offer is None or trial.value() >= raise_value:
            return "accept"
    if offer is None:
        return legal[0]
    want = f"offer {LETTERS[len(partial)]}{offer[len(partial)]}"
    return want if want in legal else legal[0]


def best_raise(pos, other, action, offered, standing, partial):
    """(offer, value) of the cheapest raise that beats the standing offer and
    starts with the counts already announced; (None, -inf) if none does."""
    me = pos.me
    holding = pos.gems[me]
    barter = comp.barter_value
    std = (standing["size"], standing["value"])
    cap = std[0] + 1  # a bigger offer is never cheaper
    ranges = [
        range(partial[c], partial[c] + 1) if c < len(partial) else range(min(holding[c], cap) + 1)
        for c in range(4)
    ]
    candidates = []
    for counts in product(*ranges):
        size = sum(counts)
        if size == 0 or size > cap:
            continue
        if (size, sum(k * v for k, v in zip(counts, barter, strict=True))) > std:
            candidates.append(counts)
            if len(candidates) >= MAX_OFFERS:
                break
    if not candidates:
        # only big offers beat it: offer everything that is left to choose
        counts = tuple(partial) + tuple(holding[len(partial) :])
        if (sum(counts), sum(k * v for k, v in zip(counts, barter, strict=True))) <= std:
            return None, float("-inf")
        candidates = [counts]
    best, best_value = None, float("-inf")
    for counts in candidates:
        trial = pos.copy()
        trial.move(me, other, counts)
        trial.perform(me, action, offered)
        value = trial.value()
        if value > best_value:
            best, best_value = counts, value
    return best, best_value


def decide_by_trial(legal, pos, change):
    """The action whose position (after `change(trial, action)`) is best."""
    scored = []
    for action in legal:
        trial = pos.copy()
        change(trial, action)
        scored.append((trial.value(), action))
    return max(scored)[1]


def decide(obs, legal):
    pos = Pos(obs)
    me = pos.me
    phase = obs["phase"]
    if phase == "commit":
        return decide_commit(obs, legal, pos)
    if phase == "bargain":
        return decide_bargain(obs, legal, pos)
    if phase == "event_choice":
        offered = obs["offered_event"]
        if "take" in legal and event_worth(pos, me, offered) >= BLIND_VALUE:
            return "take"
        return "blind" if "blind" in legal else legal[0]
    if phase == "immediate":
        return "apply" if "apply" in legal else legal[0]
    if phase == "pick":
        return decide_by_trial(legal, pos, lambda t, a: t.gain(me, unit(LETTERS.index(a[-1]))))
    if phase == "return":

        def give_back(trial, action):
            colour = LETTERS.index(action[-1])
            trial.gems[me][colour] -= 1
            trial.supply[colour] += 1

        return decide_by_trial(legal, pos, give_back)
    if phase == "swap":

        def swap(trial, action):
            _, target, give, take = action.split()
            trial.move(me, int(target), unit(LETTERS.index(give)))
            trial.move(int(target), me, unit(LETTERS.index(take)))

        return decide_by_trial(legal, pos, swap)
    if phase == "tribute":
        to = obs["tribute_to"]
        return decide_by_trial(legal, pos, lambda t, a: t.move(me, to, unit(LETTERS.index(a[-1]))))
    return legal[0]


if __name__ == "__main__":
    run(decide, game="edel-stein-reich", on_start=on_start)
