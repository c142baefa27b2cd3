"""Sign-up, log-in, log-out, password change, API tokens."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from ladder.models import ApiToken
from ladder.tokens import authenticate

pytestmark = pytest.mark.django_db


def test_signup_logs_in_and_leads_to_upload(client: Client) -> None:
    response = client.post(
        "/accounts/signup/",
        {"username": "dave", "password1": "a-long-pass-42x", "password2": "a-long-pass-42x"},
    )
    assert response.status_code == 302 and response["Location"] == "/upload/"
    assert get_user_model().objects.filter(username="dave").exists()
    assert "dave" in client.get("/").content.decode()


def test_signup_errors_are_shown(client: Client, alice) -> None:
    response = client.post(
        "/accounts/signup/", {"username": "alice", "password1": "x", "password2": "y"}
    )
    assert response.status_code == 200
    text = response.content.decode()
    assert "already exists" in text and "didn’t match" in text


def test_login_logout(client: Client, alice) -> None:
    assert "Log in" in client.get("/").content.decode()
    bad = client.post("/accounts/login/", {"username": "alice", "password": "wrong"})
    assert bad.status_code == 200 and "correct username and password" in bad.content.decode()
    good = client.post(
        "/accounts/login/", {"username": "alice", "password": "alice-pass-123", "next": "/queue/"}
    )
    assert good.status_code == 302 and good["Location"] == "/queue/"
    assert "Log out" in client.get("/").content.decode()
    assert client.post("/accounts/logout/").status_code == 302
    assert "Log in" in client.get("/").content.decode()


def test_logout_address_opened_with_get_shows_a_button(client: Client, alice) -> None:
    """A bookmarked or typed /accounts/logout/ is a page, not the browser's
    "HTTP ERROR 405"; it does not log out by itself (found by QA)."""
    client.force_login(alice)
    response = client.get("/accounts/logout/")
    assert response.status_code == 200
    text = response.content.decode()
    assert "<h1>Log out</h1>" in text and "logged in as <strong>alice</strong>" in text
    main = text.split("<main", 1)[1]
    assert '<form method="post" action="/accounts/logout/">' in main
    assert 'name="csrfmiddlewaretoken"' in main
    assert client.get("/accounts/").status_code == 200  # still logged in
    assert client.post("/accounts/logout/").status_code == 302
    signed_out = client.get("/accounts/logout/")
    assert signed_out.status_code == 200
    text = signed_out.content.decode()
    assert "<h1>Logged out</h1>" in text and "You are not logged in" in text
    assert '<form method="post" action="/accounts/logout/">' not in text


def test_post_only_addresses_opened_with_get_show_a_page(client: Client, alice) -> None:
    client.force_login(alice)
    response = client.get("/accounts/tokens/1/revoke/")
    assert response.status_code == 405 and response["Allow"] == "POST"
    text = response.content.decode()
    assert "takes a form submission" in text and "/accounts/tokens/1/revoke/" in text
    assert 'href="/"' in text and 'href="/static/css/site.css"' in text  # the site's layout
    # the API keeps its own JSON 405
    api = client.delete("/api/bots")
    assert api.status_code == 405 and api["Content-Type"] == "application/json"
    assert api.json()["error"]["code"] == "method_not_allowed"


def test_account_page_states_of_bots_without_an_accepted_version(client: Client, alice) -> None:
    """QA: a bot whose only upload was rejected read "waiting for an accepted
    version", as if something were being validated."""
    from ladder.models import Bot, BotVersion
    from tests.web.conftest import make_bot

    for name, status in (("refused", "rejected"), ("checking", "pending")):
        bot = make_bot(alice, name)
        BotVersion.objects.filter(bot=bot).update(status=status)
        Bot.objects.filter(pk=bot.pk).update(active_version=None)
    make_bot(alice, "player")
    client.force_login(alice)
    text = client.get("/accounts/").content.decode()
    rows = {
        name: re.search(rf">{name}</a>.*?</tr>", text, re.S).group(0)
        for name in ("refused", "checking", "player")
    }
    refused = Bot.objects.get(name="refused")
    assert "no accepted version: " in rows["refused"]
    assert f'href="/upload/?bot={refused.pk}">upload a new one</a>' in rows["refused"]
    assert "validating" in rows["checking"] and "no accepted version:" not in rows["checking"]
    assert "playing" in rows["player"]
    assert "waiting for an accepted version" not in text


def test_password_change(client: Client, alice) -> None:
    client.force_login(alice)
    response = client.post(
        "/accounts/password/",
        {
            "old_password": "alice-pass-123",
            "new_password1": "fresh-pass-9876",
            "new_password2": "fresh-pass-9876",
        },
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password("fresh-pass-9876")
    wrong = client.post(
        "/accounts/password/",
        {"old_password": "nope", "new_password1": "x-pass-12345", "new_password2": "x-pass-12345"},
    )
    assert "incorrectly" in wrong.content.decode()


def test_account_pages_need_login(client: Client) -> None:
    for url in ("/accounts/", "/accounts/tokens/", "/accounts/password/"):
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_token_is_shown_once_listed_and_revoked(client: Client, alice, bob) -> None:
    client.force_login(alice)
    response = client.post("/accounts/tokens/", {"name": "laptop CLI"})
    assert response.status_code == 200
    raw = response.context["raw"]
    assert raw and raw in response.content.decode()
    assert authenticate(raw) == alice
    listing = client.get("/accounts/tokens/").content.decode()
    token = ApiToken.objects.get(user=alice)
    assert "laptop CLI" in listing and token.prefix in listing and raw not in listing

    client.force_login(bob)  # someone else cannot revoke it
    client.post(f"/accounts/tokens/{token.pk}/revoke/")
    assert authenticate(raw) == alice

    client.force_login(alice)
    response = client.post(f"/accounts/tokens/{token.pk}/revoke/")
    assert response.status_code == 302
    assert authenticate(raw) is None
    assert "revoked" in client.get("/accounts/tokens/").content.decode()


def test_token_needs_a_name(client: Client, alice) -> None:
    client.force_login(alice)
    response = client.post("/accounts/tokens/", {"name": ""})
    assert response.status_code == 400
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize("name", ["evil\u202etxt.exe", "ding\u0007", "tag\U000e0041"])
def test_token_names_hide_no_control_or_format_characters(client: Client, alice, name) -> None:
    client.force_login(alice)
    response = client.post("/accounts/tokens/", {"name": name})
    assert response.status_code == 400
    assert "may not contain control or formatting characters" in response.content.decode()
    assert not ApiToken.objects.exists()


def test_account_lists_own_bots_only(client: Client, alice, bob) -> None:
    from tests.web.conftest import make_bot

    make_bot(alice, "alices-bot")
    make_bot(bob, "bobs-bot")
    client.force_login(alice)
    text = client.get("/accounts/").content.decode()
    assert "alices-bot" in text and "Splendor Duel" in text and "playing" in text
    assert "bobs-bot" not in text


def test_login_page_never_loops(client: Client, alice) -> None:
    page = client.get("/accounts/login/?next=/queue/").content.decode()
    assert 'href="/accounts/login/"' in page  # its own "Log in" link carries no next
    client.force_login(alice)
    for url in (
        "/accounts/login/?next=/accounts/login/",
        "/accounts/login/?next=/accounts/login/%3Fx",
    ):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"] == "/accounts/"
    assert client.get("/accounts/login/?next=/queue/")["Location"] == "/queue/"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_simultaneous_signups_of_one_name_make_one_account(monkeypatch) -> None:
    """Sign-ups of the same name sent at the same moment, in different capitals,
    made two accounts (``RACER`` and ``racer``, which the form refuses one at a
    time) or answered 500 on the database's unique key (found by QA under load).
    Now one is made and the others get the form's "already exists"."""
    import time

    from tests.conftest import at_once

    User = get_user_model()
    hash_password = User.set_password

    def slow_hash(user, raw):  # production's hasher takes about as long
        time.sleep(0.3)
        hash_password(user, raw)

    monkeypatch.setattr(User, "set_password", slow_hash)

    statuses: list[int] = []

    def one(i: int) -> None:
        password = "a-long-pass-42x"
        body = {"username": "racer" if i % 2 else "RACER"}
        body |= {"password1": password, "password2": password}
        statuses.append(Client().post("/accounts/signup/", body).status_code)

    at_once(one, 6)
    assert sorted(statuses) == [200] * 5 + [302], statuses
    assert get_user_model().objects.filter(username__iexact="racer").count() == 1
