"""A finished match whose replay file is gone (lost in a restore) or damaged:
the API answered 500, the viewer's frames showed the server's file path,
and the match page still offered the viewer and the download (QA operator,
2026-12-02). Each now says the file is missing, without the path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.test import Client

from tests.web.conftest import make_bot, play

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("damage", ["deleted", "garbage"])
def test_a_lost_replay_file_is_said_missing_everywhere(
    client: Client, alice, bob, damage, caplog
) -> None:
    match = play([make_bot(alice, "a"), make_bot(bob, "b")], [1, 2])
    path = Path(match.replay.path)
    assert client.get(f"/matches/{match.pk}/").content.decode().count('id="replay"') == 1
    if damage == "deleted":
        path.unlink()
    else:
        path.write_bytes(b"not a replay")
    folder = str(path.parent)

    api = client.get(f"/api/matches/{match.pk}/replay")
    assert api.status_code == 404
    error = api.json()["error"]
    assert error["code"] == "not_found"
    assert "replay file of this match is missing or damaged" in error["message"]

    download = client.get(f"/matches/{match.pk}/replay.json.gz")
    assert download.status_code == 404
    assert "missing or damaged on the server" in download.content.decode()

    frames = client.get(f"/matches/{match.pk}/frames.json")
    assert frames.status_code == 410
    assert "missing or damaged on the server" in frames.json()["error"]

    page = client.get(f"/matches/{match.pk}/").content.decode()
    if damage == "deleted":  # (a damaged file is found when the viewer loads it: 410 above)
        assert "The replay file of this match is missing or damaged on the server" in page
        assert 'id="replay"' not in page and "Download the replay" not in page

    for response in (api, download, frames):
        assert folder not in response.content.decode()
        assert folder not in json.dumps(response.headers.__dict__, default=str)
    # the operator finds the file and the cause in the log
    assert any(match.replay.name in record.getMessage() for record in caplog.records)
