"""The embedded default's Celery broker: kombu's filesystem transport, taking
the oldest message first.

kombu names each message file after the milliseconds of `time.monotonic()`
and reads a queue in string order of the names. When the clock gains a digit
(1 000 000 ms is 17 minutes after boot, then 2.8 hours, 28 hours, 11.6
days…), every newer, longer name sorts before the older ones, so those wait
until the reaper sends their matches again. Here a message is named after
the wall clock in microseconds, zero-padded to a fixed width (string order is
time order, and it survives a reboot, unlike the monotonic clock), and a
queue is read in order of that number, so files left by kombu's own naming
are taken too, oldest first.

A worker that consumes several queues looks in them in sorted order of
their names, every time (kombu's own filesystem transport takes turns), the
same order as the Redis broker's "sorted" strategy in config/settings.py:
the platform's queue "gemarena" is emptied before "gemarena.ladder".

`config.celery` registers this transport under kombu's "filesystem" alias
before any connection is made, so `CELERY_BROKER_URL = "filesystem://"` uses
it in every process (web, worker, beat).
"""

from __future__ import annotations

import os
import time
import uuid

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.transport.virtual import Empty
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads

#: digits of the microsecond timestamp in a message's file name
STAMP_WIDTH = 20


def _age(name: str) -> tuple[int, str]:
    """Sort key of a message file: its time stamp (either naming), then the name."""
    stamp = name.split("_", 1)[0]
    return (int(stamp) if stamp.isdigit() else 10**STAMP_WIDTH, name)


class SortedCycle:
    """Looks in the queues in sorted order of their names on every poll."""

    def __init__(self, fun, queues: list[str]) -> None:
        self.fun = fun
        self.queues = queues  # the channel's own list: consumers come and go

    def get(self, callback, **kwargs):
        for queue in sorted(self.queues):
            try:
                return self.fun(queue, callback, **kwargs)
            except Empty:
                continue
        raise Empty()

    def close(self) -> None:
        pass


class Channel(filesystem.Channel):
    def _reset_cycle(self) -> None:
        self._cycle = SortedCycle(self._get_and_deliver, self._active_queues)

    def _messages(self, queue: str) -> list[str]:
        """The file names of `queue`'s messages, oldest first. A name is
        "<stamp>_<uuid>.<queue>.msg" and the queue is all after the first dot
        (kombu's suffix test gives queue "b" the messages of queue "a.b")."""
        wanted = f"{queue}.msg"
        return sorted(
            (n for n in os.listdir(self.data_folder_in) if n.partition(".")[2] == wanted),
            key=_age,
        )

    def _put(self, queue: str, payload, **kwargs) -> None:
        stamp = f"{time.time_ns() // 1000:0{STAMP_WIDTH}d}"
        name = f"{stamp}_{uuid.uuid4()}.{queue}.msg"
        # Written under a name no reader looks at, then renamed: a reader never
        # sees a half-written message.
        partial = os.path.join(self.data_folder_out, f"writing-{uuid.uuid4().hex}")
        try:
            with open(partial, "wb") as out:
                out.write(str_to_bytes(dumps(payload)))
            os.replace(partial, os.path.join(self.data_folder_out, name))
        except OSError as exc:
            raise ChannelError(f"cannot add message {name!r} to the queue: {exc}") from exc

    def _get(self, queue: str):
        for name in self._messages(queue):
            # Renaming is the claim: of several workers, exactly one succeeds.
            taken = os.path.join(self.data_folder_in, f"taken-{uuid.uuid4().hex}")
            try:
                os.rename(os.path.join(self.data_folder_in, name), taken)
            except FileNotFoundError:  # another worker took it
                continue
            try:
                with open(taken, "rb") as message:
                    payload = message.read()
                os.remove(taken)
            except OSError as exc:
                raise ChannelError(f"cannot read message {name!r}: {exc}") from exc
            return loads(bytes_to_str(payload))
        raise Empty()

    def _size(self, queue: str) -> int:
        return len(self._messages(queue))

    def _purge(self, queue: str) -> int:
        removed = 0
        for name in self._messages(queue):
            try:
                os.remove(os.path.join(self.data_folder_in, name))
                removed += 1
            except FileNotFoundError:  # a worker took it meanwhile
                pass
        return removed


class Transport(filesystem.Transport):
    Channel = Channel
