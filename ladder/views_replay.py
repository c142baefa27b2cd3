"""JSON for the replay viewer (templates/ladder/_replay_viewer.html, static/js/replay.js).

- `frames.json`: a finished match, frame by frame, derived from its stored
  replay by re-simulation (`arena.spectator_frames`); `?seat=N`: as seat N
  saw it (its own observations, other seats' secret choices unnamed).
  Deriving costs a full re-simulation, so each view is cached on disk per
  match (and seat); the debug notes are kept beside it and merged per
  request, only for the seats whose bot the user owns (every seat for
  staff) — never anyone else's.
- `live.json?after=N`: a running match, from the LiveStep rows the worker
  writes while it plays; frames numbered like frames.json (frame k is the
  position after k steps). Once the match is over it says where the replay is.
  `&seat=N`: as seat N sees it, only for the owner of seat N's bot and staff
  (anyone else would learn what the seat holds): the position is re-simulated
  from the seed and the rows' actions (a secret choice's from its private
  `secret_action`), and each frame's view is the engine's `observation(N)`;
  a poll starts from the position this process reached before
  (`ladder.live_positions`), so a viewer following the match costs only the
  new steps.

Access is public like the match pages; only the notes and a running match's
seat views are private.
"""

from __future__ import annotations

import contextlib
import gzip
import itertools
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_safe

from arena import get_game, spectator_frames
from ladder.live_positions import positions
from ladder.matches import names_played_as
from ladder.models import LiveStep, Match
from ladder.results import ReplayUnavailable, stored_replay

#: bump when the cached frame document changes shape, or the engines' words for
#: actions change (2: Splendor Duel's cards in words, no "0 green" in offers;
#: 3: the count that completes an Edel, Stein & Reich raise says the whole raise)
CACHE_FORMAT = 3
#: LiveStep rows per live.json answer; a late viewer of a long match pages through
LIVE_BATCH = 400
#: the frame cache's size is looked at on the first and every PRUNE_EVERY-th
#: file a process writes (REPLAY_FRAMES_CACHE_MB)
PRUNE_EVERY = 50
_cache_writes = itertools.count(0)


# -- who may read which notes -------------------------------------------------


def note_seats(user: Any, match: Match) -> list[int]:
    """Seats whose debug notes `user` may read: their own bots' seats; all for staff."""
    if not user.is_authenticated:
        return []
    seats = match.seats.all()
    if user.is_staff:
        return sorted(s.seat for s in seats)
    return sorted(s.seat for s in seats.filter(version__bot__owner=user))


def players(match: Match) -> list[dict[str, Any]]:
    rows = list(match.seats.select_related("version__bot__owner").order_by("seat"))
    then = names_played_as(match, rows)
    return [
        {
            "seat": row.seat,
            "bot": row.version.bot.name,
            "played_as": then.get(row.seat),
            "version": row.version.number,
            "owner": row.version.bot.owner.get_username(),
            "rank": row.rank,
            "score": row.score,
            "fault": row.fault or None,
        }
        for row in rows
    ]


# -- derived frames, cached on disk -------------------------------------------


def cache_dir() -> Path:
    return Path(settings.VAR_DIR) / "cache" / "replay-frames"


def cache_key(match: Match, seat: int | None = None) -> str:
    # Ids and file names repeat when a database is recreated next to an old
    # var/ folder; the seed and the finish time tell two such matches apart.
    finished = match.finished_at.isoformat() if match.finished_at else ""
    return (
        f"{CACHE_FORMAT}|{match.pk}|{match.seed}|{finished}|{match.replay.name}|"
        f"{get_game(match.game).rules_version}|{'' if seat is None else seat}"
    )


def derive(match: Match, seat: int | None = None) -> dict[str, Any]:
    """The frames of everyone's view (or seat `seat`'s) plus the notes that
    view shows to those allowed (every seat's, or that seat's), straight
    from the replay file."""
    _, replay = stored_replay(match)
    frames = spectator_frames(replay, notes_for=range(len(replay["seats"])), seat=seat)
    notes = []
    for frame in frames:
        note = frame.pop("note", None)
        if note:
            notes.append([frame["step"], frame["seat"], note])
    return {
        "key": cache_key(match, seat),
        "frames": frames,
        "notes": notes,
        "outcome": replay.get("outcome"),
        "faults": [
            None if f is None else {"kind": f.get("kind"), "step": f.get("step")}
            for f in replay.get("faults", [])
        ],
    }


def prune_cache(limit_bytes: int) -> int:
    """Remove the least recently used frame files (oldest modification time: a
    hit touches its file) until the folder holds at most 90 % of `limit_bytes`,
    once it holds more than `limit_bytes`. Returns how many files went. Without
    this the folder grew by a file per match ever viewed (about 15 kB each; a
    crawler fetching every match's frames fills the disk; found by QA)."""
    entries, total = [], 0
    try:
        listing = list(os.scandir(cache_dir()))
    except FileNotFoundError:
        return 0
    for entry in listing:
        if not entry.name.endswith(".json.gz"):
            continue  # a write in progress
        try:
            stat = entry.stat()
        except FileNotFoundError:  # another process pruned it
            continue
        entries.append((stat.st_mtime, stat.st_size, entry.path))
        total += stat.st_size
    removed = 0
    if total <= limit_bytes:
        return 0
    for _, size, path in sorted(entries):
        if total <= limit_bytes * 0.9:
            break
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)
            removed += 1
        total -= size
    return removed


def cached_frames(match: Match, seat: int | None = None) -> dict[str, Any]:
    name = f"match-{match.pk}" if seat is None else f"match-{match.pk}-seat-{seat}"
    path = cache_dir() / f"{name}.json.gz"
    key = cache_key(match, seat)
    try:
        document = json.loads(gzip.decompress(path.read_bytes()))
        if document.get("key") == key:
            with contextlib.suppress(OSError):
                os.utime(path)  # recently used: pruned last
            return document
    except (OSError, ValueError, EOFError):
        pass  # missing, stale or damaged: derive again
    document = derive(match, seat)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = gzip.compress(json.dumps(document, separators=(",", ":")).encode(), 6, mtime=0)
    # write then rename, so a concurrent reader never sees half a file
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "wb") as out:
        out.write(raw)
    os.replace(tmp, path)
    if next(_cache_writes) % PRUNE_EVERY == 0:
        prune_cache(settings.REPLAY_FRAMES_CACHE_MB << 20)
    return document


# -- views ----------------------------------------------------------------------


def _missing(match_id: int) -> JsonResponse:
    return JsonResponse({"error": f"there is no match {match_id}"}, status=404)


def _seat_param(request: HttpRequest, match: Match) -> int | None | str:
    """`?seat=N` as a seat number, None when absent, or the error message."""
    text = request.GET.get("seat", "")
    if text == "":
        return None
    if not (text.isascii() and text.isdigit() and int(text) < match.seat_count):
        return (
            f"seat must be a seat number 0..{match.seat_count - 1} "
            "(leave it out for everyone's view)"
        )
    return int(text)


def _head(match: Match) -> dict[str, Any]:
    return {
        "match": match.pk,
        "game": match.game,
        "status": match.status,
        "steps": match.steps,
        "players": players(match),
    }


@require_safe
@gzip_page
def frames(request: HttpRequest, match_id: int) -> JsonResponse:
    """Every frame of a finished match, as everyone saw it or (`?seat=N`) as
    seat N did; the user's own bots' notes merged in."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        return _missing(match_id)
    head = _head(match)
    seat = _seat_param(request, match)
    if isinstance(seat, str):
        head["error"] = seat
        return JsonResponse(head, status=400)
    head["seat"] = seat
    if match.status in (Match.Status.QUEUED, Match.Status.RUNNING):
        head["live_url"] = reverse("match_live_json", args=[match.pk])
        head["error"] = "the match is not over yet"
        return JsonResponse(head, status=409)
    if not match.replay:
        head["error"] = f"this match has no replay ({match.status})"
        return JsonResponse(head, status=404)
    try:
        document = cached_frames(match, seat)
    except ReplayUnavailable as exc:
        head["error"] = f"the replay cannot be shown: {exc}"
        return JsonResponse(head, status=410)
    allowed = set(note_seats(request.user, match))
    frame_list = document["frames"]
    for step, seat, note in document["notes"]:
        if seat in allowed:
            frame_list[step]["note"] = note
    head.update(
        outcome=document["outcome"],
        faults=document["faults"],
        notes_for=sorted(allowed),
        game_data=get_game(match.game).public_data(match.options),
        frames=frame_list,
    )
    return JsonResponse(head)


def start_frame(match: Match, seat: int | None = None) -> dict[str, Any]:
    """Frame 0 of a running match, re-created from its seed (never sent
    itself), as everyone sees it or as seat `seat` does."""
    state = get_game(match.game).new(match.seat_count, match.seed, match.options)
    return {
        "step": 0,
        "seat": None,
        "action": None,
        "description": "start",
        "view": state.spectator_view() if seat is None else state.observation(seat),
    }


class LiveSeatUnavailable(Exception):
    """The live rows cannot be re-simulated (a gap, or a secret choice without its action)."""


#: what re-simulating a live row takes (its view is only sent)
_ACTION_KEYS = ("data__step", "data__seat", "data__action", "data__secret_action")


def live_seat_frames(match: Match, seat: int, after: int, limit: int) -> tuple[list, int]:
    """Frames above `after` (at most `limit` rows) of a running match as seat
    `seat` sees them: the position re-simulated from the seed and every live
    row's action, each view the engine's `observation(seat)`. Another seat's
    secret choice stays unnamed, as in everyone's live view; the seat's own
    is named, and only the seat's own debug notes come along (the caller
    checked that the user may read them). Returns the frames and how many
    rows they came from.

    The re-simulation starts from the newest position this process reached
    before at or below `after` (`ladder.live_positions`: the previous poll's
    last frame, for a viewer following the match) and reads only the rows
    from there on, of those below `after` only their actions; the positions
    at `after` and at the last frame are kept for the next poll."""
    first = max(after, 0)
    claim = match.claim
    reached = positions.nearest(match.pk, claim, first) if claim else None
    if reached is None:
        reached = 0, get_game(match.game).new(match.seat_count, match.seed, match.options)
    start, state = reached
    out = [start_frame(match, seat)] if after < 0 else []
    steps = LiveStep.objects.filter(match=match).order_by("step")
    passed = steps.filter(step__gte=start, step__lt=first).values_list(*_ACTION_KEYS)
    if start == first:
        passed = passed.none()  # no query
    rows = itertools.chain(
        (
            dict(zip(("step", "seat", "action", "secret_action"), row, strict=True))
            for row in passed
        ),
        # one row decoded at a time: the rows' views, big, are dropped as they go
        steps.filter(step__gte=first, step__lt=first + limit)
        .values_list("data", flat=True)
        .iterator(),
    )
    count, applied = 0, start
    for index, data in enumerate(rows, start):
        if int(data["step"]) != index:
            raise LiveSeatUnavailable(f"live step {index} is missing")
        if claim and index == first > start:
            positions.keep(match.pk, claim, first, state.clone())
        actor = data.get("seat")
        action = data.get("action") or data.get("secret_action")
        if actor is None or not action:
            raise LiveSeatUnavailable(f"live step {index} was recorded without its action")
        frame = live_frame(data)
        try:
            if actor == seat and action != frame["action"]:
                frame.update(action=action, description=state.describe_action(actor, action))
            state.apply(int(actor), str(action))
        except ValueError as exc:
            raise LiveSeatUnavailable(f"live step {index}: {exc}") from None
        applied = index + 1
        if index >= after:
            frame["view"] = state.observation(seat)
            if data.get("note") and actor == seat:
                frame["note"] = data["note"]
            out.append(frame)
            count += 1
    if claim and applied > start:
        positions.keep(match.pk, claim, applied, state)
    return out, count


def live_frame(data: dict[str, Any]) -> dict[str, Any]:
    """A LiveStep row (0-based step index) as the frame after that step."""
    return {
        "step": int(data["step"]) + 1,
        "seat": data.get("seat"),
        "action": data.get("action"),
        "description": data.get("description") or "",
        "forced": bool(data.get("forced")),
        "view": data.get("view"),
    }


@require_safe
@never_cache
@gzip_page
def live(request: HttpRequest, match_id: int) -> JsonResponse:
    """Frames numbered above `after` of a running match; -1 (the default) includes the start.

    `run` (when the running match was taken, changing with each run) tells
    the client to start over when a match is played again after a system
    fault; `attempt` alone may not change, as a fault that was the worker's
    gives its attempt back. Debug notes are sent as in `frames`: only for
    the seats of the user's own bots (every seat for staff). `seat=N`: as
    seat N sees it (`live_seat_frames`), refused (403) unless the user owns
    seat N's bot or is staff.
    """
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        return _missing(match_id)
    try:
        after = int(request.GET.get("after", "-1"))
    except ValueError:
        return JsonResponse({"error": "after must be an integer"}, status=400)
    after = max(after, -1)
    head = _head(match)
    seat = _seat_param(request, match)
    if isinstance(seat, str):
        head["error"] = seat
        return JsonResponse(head, status=400)
    allowed = set(note_seats(request.user, match))
    if seat is not None and seat not in allowed:
        head["error"] = (
            f"seat {seat}'s view of a running match is only for the owner of its bot "
            "and staff (leave seat out for everyone's view)"
        )
        return JsonResponse(head, status=403)
    running = match.status == Match.Status.RUNNING and match.started_at is not None
    run = match.started_at.isoformat() if running else None
    head.update(seat=seat, attempt=match.attempts, run=run, frames=[], more=False)
    if match.status == Match.Status.FINISHED and match.replay:
        head["frames_url"] = reverse("match_frames_json", args=[match.pk])
        return JsonResponse(head)
    if match.status != Match.Status.RUNNING:
        return JsonResponse(head)
    if seat is not None:
        try:
            out, count = live_seat_frames(match, seat, after, LIVE_BATCH)
        except LiveSeatUnavailable as exc:
            head["error"] = f"this match cannot be shown live as seat {seat}: {exc}"
            return JsonResponse(head, status=409)
        head["notes_for"] = [seat]
    else:
        # LiveStep.step i is the frame i + 1
        rows = list(
            LiveStep.objects.filter(match=match, step__gte=after)
            .order_by("step")
            .values_list("data", flat=True)[:LIVE_BATCH]
        )
        count = len(rows)
        out = []
        for data in rows:
            frame = live_frame(data)
            if data.get("note") and frame["seat"] in allowed:
                frame["note"] = data["note"]
            out.append(frame)
        head["notes_for"] = sorted(allowed)
        if after < 0:
            out.insert(0, start_frame(match))
    if after < 0:
        head["game_data"] = get_game(match.game).public_data(match.options)
    head["frames"] = out
    head["more"] = count == LIVE_BATCH
    return JsonResponse(head)
