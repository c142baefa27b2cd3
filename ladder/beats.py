"""Exactly one beat, or a second one made visible and harmless.

Celery beat has no lock of its own: a second beat (a unit enabled on two
hosts, a compose service scaled to two) sends every chore twice. Each beat
therefore has an identity (host, pid, start time) that it puts in a header
of every message it sends: Celery's `beat_init` signal, which every beat
sends when it starts whatever its scheduler (`--scheduler`,
`CELERY_BEAT_SCHEDULER`), names the process a beat, and `before_task_publish`
adds the header to each message it publishes. The chores that must run once
per interval (`fill_queue`, `refit_ratings`, `prune_records`,
`reap_stale_matches`) call `chore_due` first, which records the beat as seen
(`SeenBeat`, read by /status/) and claims the tick with a conditional update
on the chore's `ChoreRun` row: a tick of another beat within the interval
does nothing and logs why. The database is the one place both the embedded
default (SQLite, filesystem broker) and a production stack share, so the
guard lives there.

The signals are connected when this module is imported, which every beat
does before it starts: it imports the task modules (`ladder.tasks` imports
this one) before `beat_init`.
"""

from __future__ import annotations

import logging
import os
import socket
from datetime import UTC, datetime, timedelta

from celery.signals import beat_init, before_task_publish
from django.conf import settings

log = logging.getLogger(__name__)

#: the message header that carries the sending beat's identity
HEADER = "gemarena_beat"
#: a beat whose chores stopped arriving this long ago is gone
BEAT_STALE_S = 90
#: a stopped beat's last chores may be taken after its successor's first
#: (several workers, a busy housekeeper): two beats overlapping by less than
#: this are a restart, not two beats
OVERLAP_MARGIN_S = 30

#: this process's identity once it started as a beat (None: not a beat)
this_beat: str | None = None


def identity(started: datetime | None = None) -> str:
    started = started or datetime.now(UTC)
    return f"{socket.gethostname()} pid {os.getpid()} started {started:%Y-%m-%d %H:%M:%S} UTC"


@beat_init.connect
def name_this_beat(sender=None, **kwargs) -> None:
    """This process is a beat from now on (also one embedded in a worker, `-B`)."""
    global this_beat
    this_beat = identity()
    log.info("beat %s", this_beat)


@before_task_publish.connect
def sign_message(sender=None, headers=None, **kwargs) -> None:
    """A beat's messages name it (the `headers` dict is the one published).
    Set at send time, never stored in a schedule: a restarted beat is a new one."""
    if this_beat is not None and headers is not None:
        headers[HEADER] = this_beat


def interval_s(task_name: str) -> float | None:
    """How often the beat sends this task (None: it does not)."""
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        if entry["task"] == task_name:
            every = entry["schedule"]
            return every.total_seconds() if isinstance(every, timedelta) else float(every)
    return None


def chore_due(task) -> bool:
    """Whether this run of a beat chore should do its work: False for a
    second beat's tick within the chore's interval. A run sent by hand (no
    beat header: `manage.py shell`, tests) always runs."""
    # imported here: the beat process loads this module for its scheduler
    from ladder.models import ChoreRun, SeenBeat

    # a message's own headers, both in a worker and in task.apply(headers=...)
    beat = (task.request.get("headers") or {}).get(HEADER)
    every = interval_s(task.name)
    if not beat or every is None:
        return True
    SeenBeat.saw(beat)
    holder = ChoreRun.take(task.name, beat, every)
    if not holder:
        return True
    pair = two_beats()
    if pair:
        log.warning(
            "two beats are running: %s and %s; stop one (%s sent by %s skipped)",
            *pair,
            task.name,
            beat,
        )
    else:  # a restarted beat, until its predecessor's interval is over
        log.info(
            "%s sent by %s skipped: %s ran it less than %s s ago", task.name, beat, holder, every
        )
    return False


def two_beats() -> tuple[str, str] | None:
    from ladder.models import SeenBeat

    return SeenBeat.running_together(BEAT_STALE_S, OVERLAP_MARGIN_S)
