"""The component data a replay viewer gets follows the match's own options."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from django.urls import reverse

from arena import get_game
from ladder import tasks
from ladder.bots import install_builtin
from ladder.matches import create_match
from ladder.models import Match

ESR = "edel-stein-reich"
COMPONENTS = (
    Path(__file__).resolve().parents[2] / "arena/games/edel_stein_reich/data/components.json"
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def process_sandbox(settings, tmp_path):
    media = Path(tempfile.mkdtemp(prefix="gemarena-media-"))
    media.chmod(0o755)  # the sandbox's unprivileged user reads the bots from here
    settings.MEDIA_ROOT = media
    settings.VAR_DIR = tmp_path
    settings.SANDBOX_BACKEND = "process"
    settings.MOVE_MS = 2000
    settings.STARTUP_MS = 15000
    yield
    shutil.rmtree(media, ignore_errors=True)


def renamed_components() -> dict:
    data = json.loads(COMPONENTS.read_text())
    data["house_values"] = False
    data["event_cards"][0]["name"] = "The Operator's Certificate"
    return data


def test_edel_stein_reich_game_data_names_every_event_card() -> None:
    events = get_game(ESR).public_data()["events"]
    assert events["certificate"]["name"] == "Certificate"
    assert events["scoring-red-plus-5"]["params"] == {"colour": "red", "bonus": 5}
    assert get_game(ESR).public_data({"components": "not a document"}) == {}


def test_live_and_replay_frames_carry_the_matchs_own_event_names(client) -> None:
    lineup = [install_builtin(ESR, "random", bot_name=f"rnd-{i}").active_version for i in range(3)]
    match = create_match(ESR, lineup, options={"components": renamed_components()})
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    live = client.get(reverse("match_live_json", args=[match.pk])).json()
    assert live["game_data"]["events"]["certificate"]["name"] == "The Operator's Certificate"

    Match.objects.filter(pk=match.pk).update(status=Match.Status.QUEUED)
    assert tasks.run_match.run(match.pk) == "finished"
    frames = client.get(reverse("match_frames_json", args=[match.pk])).json()
    assert frames["game_data"]["events"]["certificate"]["name"] == "The Operator's Certificate"
