"""Positions of running matches that a web process has re-simulated, kept
for the next `live.json?seat=N` poll (ladder/views_replay.py).

A seat's live view is drawn from the engine's `observation(N)`, so each
poll needs the position after the frames the viewer already has. Without
these it re-simulated the match from its seed through every live step on
each poll: a following viewer's poll took 80 ms at 1,000 steps against
7 ms for everyone's view (docs/web.md "Live views of a running match").

A position is keyed by the match, its claim and the steps applied: a
claim is made afresh for each run of a match (`Match.claim_for`) and its
live steps only grow while it holds (they go when it ends, and the next
run starts again from step 0), so a position reached once stays right for
as long as the claim does. The position holds every seat's secrets; it is
never sent, only asked for one seat's observation. Each web process keeps
its own, the most recently used `LIMIT`; a poll that another process served
last starts from this process's newest position at or below it, else from
the seed.
"""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict

from arena import GameState

#: positions kept per web process: a viewer following a match needs one or
#: two. A 5-seat Edel, Stein & Reich position copied whole takes about 60 kB
#: (clones share what they did not change: 5 kB each of one match), so at
#: most about 7 MB.
LIMIT = 128


class Positions:
    """A bounded, thread-safe LRU of positions by (match, claim, step).
    Callers get clones and give up what they store: nothing kept is ever
    changed, so a thread never sees another's half-applied step."""

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._kept: OrderedDict[tuple[int, uuid.UUID, int], GameState] = OrderedDict()

    def nearest(self, match_id: int, claim: uuid.UUID, step: int) -> tuple[int, GameState] | None:
        """(steps applied, a clone of the position) of the newest position
        kept for this run of the match at or below `step`; None if none is."""
        with self._lock:
            found = [k for k in self._kept if k[:2] == (match_id, claim) and k[2] <= step]
            if not found:
                return None
            key = max(found, key=lambda k: k[2])
            self._kept.move_to_end(key)
            state = self._kept[key]
        return key[2], state.clone()

    def keep(self, match_id: int, claim: uuid.UUID, step: int, state: GameState) -> None:
        """Keep `state`, the position after `step` steps (the caller no longer changes it)."""
        with self._lock:
            self._kept[(match_id, claim, step)] = state
            self._kept.move_to_end((match_id, claim, step))
            while len(self._kept) > self.limit:
                self._kept.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()


#: this process's positions
positions = Positions()
