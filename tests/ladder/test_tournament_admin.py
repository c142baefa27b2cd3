"""The tournament admin: the add form starts one (its errors are the
rules' messages, and nothing is stored), the change page is read-only with
entries, progress and standings, the *cancel* action stops it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from ladder.models import Match, Tournament
from tests.ladder.test_tournaments import make_bots, no_broker, play  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db(transaction=True)

ADD = "admin:ladder_tournament_add"


def form(bots, **change) -> dict:
    return {
        "name": "Spring cup",
        "game": "splendor-duel",
        "bots": [b.pk for b in bots],
        "players": "2",
        "games": "2",
        "seed": "",
        "options": "",
        **change,
    }


def test_add_view_change_and_cancel(admin_client, admin_user, alice) -> None:
    bots = make_bots(alice, 3)
    page = admin_client.get(reverse(ADD)).content.decode()
    assert "bot0 (splendor-duel, v1, id" in page
    response = admin_client.post(reverse(ADD), form(bots, seed="8"))
    assert response.status_code == 302, response.content.decode()[:3000]
    tournament = Tournament.objects.get()
    assert (tournament.name, tournament.seed, tournament.created_by) == (
        "Spring cup",
        8,
        admin_user,
    )
    assert tournament.matches.count() == 6
    play(tournament.matches.order_by("pk").first(), [1, 2])
    change = reverse("admin:ladder_tournament_change", args=[tournament.pk])
    page = admin_client.get(change).content.decode()
    assert "6 matches: 5 queued, 0 running, 1 finished" in page
    assert "<td>bot0 v1</td><td>1</td><td>100.0%</td>" in page
    assert 'name="name"' not in page  # read-only once created
    delete = reverse("admin:ladder_tournament_delete", args=[tournament.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    response = admin_client.post(
        reverse("admin:ladder_tournament_changelist"),
        {"action": "cancel", "_selected_action": [tournament.pk]},
        follow=True,
    )
    messages = " ".join(str(m) for m in response.context["messages"])
    assert "1 tournaments cancelled, 5 queued matches with them." in messages
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"players": "3"}, "splendor-duel is played by 2 players, not 3"),
        ({"games": "0"}, "games per table must be at least 1, not 0"),
        ({"game": "edel-stein-reich"}, "edel-stein-reich is played by 3, 4, 5 players, not 2"),
        ({"options": '{"no_such_option": 1}'}, "options: "),
    ],
)
def test_a_refused_tournament_is_a_form_error(admin_client, alice, change, message) -> None:
    bots = make_bots(alice, 2)
    response = admin_client.post(reverse(ADD), form(bots, **change))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Tournament.objects.exists() and not Match.objects.exists()
