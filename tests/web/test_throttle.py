"""Limits on failed sign-ins and on sign-ups per client address (ladder/throttle.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory
from django.utils import timezone

from ladder.models import AuthAttempt
from ladder.tasks import prune_records
from ladder.throttle import client_address

pytestmark = pytest.mark.django_db

PASSWORD = "alice-pass-123"  # the alice fixture's


def sign_in(address: str, username: str = "alice", password: str = "wrong", path=None):
    client = Client(REMOTE_ADDR=address)
    return client, client.post(
        path or "/accounts/login/", {"username": username, "password": password}
    )


def fail(address: str, times: int, username: str = "alice") -> None:
    for _ in range(times):
        _, response = sign_in(address, username)
        assert response.status_code == 200, response.status_code
        assert "correct username and password" in response.content.decode()


def test_a_guesser_is_stopped_per_name_and_address_and_told_when_to_come_back(
    settings, alice, monkeypatch
) -> None:
    settings.LOGIN_FAILURES_PER_ACCOUNT = 3
    settings.LOGIN_FAILURE_WINDOW_MINUTES = 15
    fail("10.0.0.1", 3)
    checked = []
    User = get_user_model()
    check_password = User.check_password
    monkeypatch.setattr(
        User, "check_password", lambda user, raw: checked.append(raw) or check_password(user, raw)
    )
    # even the right password is not checked now
    _, refused = sign_in("10.0.0.1", "ALICE", PASSWORD)
    assert refused.status_code == 429
    text = refused.content.decode()
    assert "Too many failed sign-ins for this user name from your address: 3 in 15" in text
    assert "Try again in 15 minutes." in text
    assert checked == [] and "_auth_user_id" not in refused.wsgi_request.session
    # the owner, elsewhere, is not locked out; and another name from the guesser's address may try
    client, elsewhere = sign_in("10.0.0.2", password=PASSWORD)
    assert elsewhere.status_code == 302 and "Log out" in client.get("/").content.decode()
    fail("10.0.0.1", 1, username="bob")
    # the oldest failure that counts expires: one more try, and it is right
    oldest = AuthAttempt.objects.filter(address="10.0.0.1", account="alice").order_by("at")[0]
    AuthAttempt.objects.filter(pk=oldest.pk).update(at=timezone.now() - timedelta(minutes=16))
    _, again = sign_in("10.0.0.1", password=PASSWORD)
    assert again.status_code == 302
    # ... which forgets that address's failures for the name, and no one else's
    assert not AuthAttempt.objects.filter(address="10.0.0.1", account="alice").exists()
    assert AuthAttempt.objects.filter(address="10.0.0.1", account="bob").count() == 1


def test_guessing_many_names_from_one_address_is_stopped_too(settings, alice) -> None:
    settings.LOGIN_FAILURES_PER_ACCOUNT = 10
    settings.LOGIN_FAILURES_PER_ADDRESS = 4
    for name in ("ann", "ben", "cy", "dee"):
        fail("192.0.2.7", 1, username=name)
    _, refused = sign_in("192.0.2.7", "alice", PASSWORD)
    assert refused.status_code == 429
    assert "Too many failed sign-ins from your address: 4 in" in refused.content.decode()
    assert AuthAttempt.objects.count() == 4  # the refused attempt is not kept
    _, other = sign_in("192.0.2.8", "alice", PASSWORD)
    assert other.status_code == 302


def test_the_admin_sign_in_is_limited_the_same_way(settings, django_user_model) -> None:
    django_user_model.objects.create_superuser("root", password="root-pass-123")
    settings.LOGIN_FAILURES_PER_ACCOUNT = 2
    path = "/admin/login/?next=/admin/"
    for _ in range(2):
        _, response = sign_in("10.9.9.9", "root", "nope", path=path)
        assert response.status_code == 200
    _, refused = sign_in("10.9.9.9", "root", "root-pass-123", path=path)
    assert "Too many failed sign-ins for this user name" in refused.content.decode()
    assert "_auth_user_id" not in refused.wsgi_request.session
    _, elsewhere = sign_in("10.9.9.8", "root", "root-pass-123", path=path)
    assert elsewhere.status_code == 302 and elsewhere["Location"] == "/admin/"


def signup(address: str, username: str):
    password = "a-long-pass-42x"
    return Client(REMOTE_ADDR=address).post(
        "/accounts/signup/", {"username": username, "password1": password, "password2": password}
    )


def test_accounts_made_from_one_address_are_limited_per_hour(settings) -> None:
    settings.SIGNUPS_PER_ADDRESS_PER_HOUR = 2
    assert signup("10.1.1.1", "one").status_code == 302
    assert signup("10.1.1.1", "two").status_code == 302
    refused = signup("10.1.1.1", "three")
    assert refused.status_code == 429
    assert "2 accounts were made from your address in the last hour, the limit" in (
        refused.content.decode()
    )
    User = get_user_model()
    assert not User.objects.filter(username="three").exists()
    # a form error does not count; another address is not affected
    assert signup("10.1.1.2", "one").status_code == 200
    assert signup("10.1.1.2", "three").status_code == 302
    # an hour on, the address may make one again
    AuthAttempt.objects.filter(address="10.1.1.1").update(at=timezone.now() - timedelta(hours=1))
    assert signup("10.1.1.1", "four").status_code == 302
    assert set(User.objects.values_list("username", flat=True)) == {"one", "two", "three", "four"}


@pytest.mark.parametrize(
    ("source", "forwarded", "expected"),
    [
        ("peer", "203.0.113.9", "127.0.0.1"),  # a client's header is not believed
        ("x-forwarded-for", "198.51.100.1, 203.0.113.9", "203.0.113.9"),  # what the proxy added
        ("x-forwarded-for", "2001:db8::1", "2001:db8::/64"),  # a client holds a whole /64
        ("x-forwarded-for", "2001:db8:0:0:ffff::9", "2001:db8::/64"),
        ("x-forwarded-for", "::ffff:203.0.113.9", "203.0.113.9"),
        ("x-forwarded-for", "", "127.0.0.1"),
        ("x-forwarded-for", "203.0.113.9, not-an-address", "127.0.0.1"),
    ],
)
def test_the_client_address(settings, source, forwarded, expected) -> None:
    settings.CLIENT_ADDRESS_FROM = source
    request = RequestFactory().get("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=forwarded)
    assert client_address(request) == expected


def test_behind_a_proxy_each_client_has_its_own_limit(settings, alice) -> None:
    settings.CLIENT_ADDRESS_FROM = "x-forwarded-for"
    settings.LOGIN_FAILURES_PER_ACCOUNT = 1

    def via_proxy(client_ip: str, password: str):
        return Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=client_ip).post(
            "/accounts/login/", {"username": "alice", "password": password}
        )

    assert via_proxy("203.0.113.9", "wrong").status_code == 200
    assert via_proxy("203.0.113.9", PASSWORD).status_code == 429
    assert via_proxy("203.0.113.10", PASSWORD).status_code == 302


def test_attempts_no_limit_counts_are_pruned(settings) -> None:
    settings.LOGIN_FAILURE_WINDOW_MINUTES = 15
    now = timezone.now()
    for minutes in (5, 59, 61, 600):
        AuthAttempt.objects.create(
            kind=AuthAttempt.Kind.SIGNUP,
            address=f"10.0.0.{minutes % 250}",
            at=now - timedelta(minutes=minutes),
        )
    assert prune_records()["attempts"] == 2  # the sign-up hour is the longest window
    assert sorted(AuthAttempt.objects.values_list("address", flat=True)) == [
        "10.0.0.5",
        "10.0.0.59",
    ]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_guesses_sent_at_the_same_moment_check_no_more_passwords_than_the_limit(
    settings, monkeypatch
) -> None:
    """Each attempt is stored before it is counted: had they counted first,
    all eight would see an empty record and check a password."""
    import time

    from tests.conftest import at_once

    get_user_model().objects.create_user("carol", password="carol-pass-123")
    settings.LOGIN_FAILURES_PER_ACCOUNT = 3
    User = get_user_model()
    check_password = User.check_password
    checked: list[str] = []

    def slow_check(user, raw):  # production's hasher takes about as long
        checked.append(raw)
        time.sleep(0.3)
        return check_password(user, raw)

    monkeypatch.setattr(User, "check_password", slow_check)
    statuses: list[int] = []
    at_once(lambda i: statuses.append(sign_in("10.7.7.7", "carol")[1].status_code), 8)
    assert len(statuses) == 8 and set(statuses) <= {200, 429}, statuses
    assert len(checked) == statuses.count(200) <= 3
    assert AuthAttempt.objects.filter(account="carol").count() == len(checked)


def test_a_guesser_cannot_dodge_the_limit_by_walking_an_ipv6_64(settings, alice) -> None:
    settings.LOGIN_FAILURES_PER_ACCOUNT = 2
    for host in (1, 2):
        _, response = sign_in(f"2001:db8:1:2::{host}")
        assert response.status_code == 200
    _, refused = sign_in("2001:db8:1:2::3", password=PASSWORD)
    assert refused.status_code == 429
    _, other_net = sign_in("2001:db8:1:3::1", password=PASSWORD)
    assert other_net.status_code == 302
