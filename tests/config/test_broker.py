"""The embedded default's filesystem broker takes the oldest message first."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from kombu import Connection
from kombu.transport.virtual import Empty

import config.celery  # noqa: F401  (registers the transport)
from config.broker import Channel


@pytest.fixture
def channel(tmp_path: Path):
    folder = tmp_path / "queue"
    folder.mkdir()
    options = {"data_folder_in": str(folder), "data_folder_out": str(folder)}
    with Connection("filesystem://", transport_options=options) as conn:
        chan = conn.default_channel
        assert isinstance(chan, Channel)
        yield chan, folder


def kombu_named(folder: Path, stamp: int, body: str) -> None:
    """A message as kombu names it: monotonic milliseconds, not padded."""
    (folder / f"{stamp}_{uuid.uuid4()}.q.msg").write_text(f'{{"body": "{body}"}}')


def take_all(chan) -> list[str]:
    bodies = []
    while True:
        try:
            bodies.append(chan._get("q")["body"])
        except Empty:
            return bodies


def test_messages_come_out_in_the_order_they_went_in(channel) -> None:
    chan, folder = channel
    for body in ("first", "second", "third"):
        chan._put("q", {"body": body})
    chan._put("other", {"body": "elsewhere"})
    chan._put("x.q", {"body": "a queue whose name ends in .q"})
    assert take_all(chan) == ["first", "second", "third"]
    assert sorted(p.name.partition(".")[2] for p in folder.iterdir()) == ["other.msg", "x.q.msg"]


def test_an_older_message_is_not_overtaken_when_the_clock_gains_a_digit(channel) -> None:
    """kombu's own order is by name: '1298379_…' sorted before '966542_…', so a
    message sent before the millisecond count reached 1 000 000 waited for
    every later one."""
    chan, folder = channel
    kombu_named(folder, 1_298_379, "later")
    kombu_named(folder, 966_542, "earlier")
    chan._put("q", {"body": "now"})
    assert take_all(chan) == ["earlier", "later", "now"]
    assert list(folder.iterdir()) == []  # nothing half-taken is left behind


def test_size_and_purge_count_only_the_queue_named(channel) -> None:
    chan, folder = channel
    chan._put("q", {"body": "mine"})
    chan._put("x.q", {"body": "a queue whose name ends in .q"})
    chan._put("q.ladder", {"body": "the ladder's"})
    assert chan._size("q") == 1
    assert chan._purge("q") == 1
    assert sorted(p.name.partition(".")[2] for p in folder.iterdir()) == [
        "q.ladder.msg",
        "x.q.msg",
    ]


def test_a_worker_empties_the_queues_in_sorted_order_of_their_names(tmp_path: Path) -> None:
    """Consumed in either order, "q" is emptied before "q.ladder": an upload's
    validation overtakes the ladder's matches (config/settings.py)."""
    from kombu import Consumer, Exchange, Producer, Queue

    folder = tmp_path / "queue"
    folder.mkdir()
    options = {
        "data_folder_in": str(folder),
        "data_folder_out": str(folder),
        "control_folder": str(tmp_path / "control"),  # kombu's default is ./control
    }
    queues = [Queue(n, Exchange(n), routing_key=n) for n in ("q.ladder", "q")]
    got: list[str] = []
    with Connection("filesystem://", transport_options=options) as conn:
        producer = Producer(conn.default_channel)
        for n in range(3):
            producer.publish({"body": f"ladder {n}"}, routing_key="q.ladder", declare=[queues[0]])
        producer.publish({"body": "validation"}, routing_key="q", declare=[queues[1]])
        with Consumer(
            conn.default_channel,
            queues,
            callbacks=[lambda body, message: (got.append(body["body"]), message.ack())],
        ):
            for _ in range(4):
                conn.drain_events(timeout=2)
    assert got == ["validation", "ladder 0", "ladder 1", "ladder 2"]
