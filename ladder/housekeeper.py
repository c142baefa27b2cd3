"""`python -m ladder.housekeeper`: a Celery worker for the beat's database-only
chores (filling the ladder's queue, refitting the leaderboards, pruning
expired sessions and long-gone workers) and nothing else.

Match workers take these chores too, but only from a free slot: while every
slot plays a long match, the leaderboard would not move and the queue would
run dry. The housekeeper is one process (solo pool) that needs the database
and the broker, no Docker engine and no bot image; it plays no match and
does not count as a worker on the status page or for the queue depth. Run
one or more next to the beat; extra arguments go to `celery worker`
(e.g. `--loglevel DEBUG`).
"""

from __future__ import annotations

import os
import sys


def argv(extra: list[str]) -> list[str]:
    from ladder.matches import housekeeping_queue

    return [
        "worker",
        "--pool",
        "solo",
        "--concurrency",
        "1",
        "--hostname",
        "housekeeper@%h",
        "--queues",
        housekeeping_queue(),
        "--loglevel",
        "INFO",
        *extra,
    ]


def main(extra: list[str] | None = None) -> None:
    extra = sys.argv[1:] if extra is None else extra
    if extra[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()  # the queue's name comes from the settings
    from config.celery import app

    app.worker_main(argv(extra))


if __name__ == "__main__":
    main()
