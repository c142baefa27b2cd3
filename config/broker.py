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


class Channel(filesystem.Channel):
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
        # "<stamp>_<uuid>.<queue>.msg": the queue is all after the first dot
        # (a suffix test would give queue "b" the messages of queue "a.b")
        wanted = f"{queue}.msg"
        names = sorted(
            (n for n in os.listdir(self.data_folder_in) if n.partition(".")[2] == wanted),
            key=_age,
        )
        for name in names:
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


class Transport(filesystem.Transport):
    Channel = Channel
