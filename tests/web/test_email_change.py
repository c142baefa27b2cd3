"""A new email address is used only once its owner opened the link mailed to
it (`ladder.email_change`): a typo, or somebody else's address, must never
receive the account's password-reset links."""

from __future__ import annotations

import re
import smtplib
import time
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from ladder import email_change
from ladder.models import MailSettings

pytestmark = pytest.mark.django_db

PASSWORD = "alice-pass-123"


def signed_in(user, address: str = "10.7.0.1") -> Client:
    client = Client(REMOTE_ADDR=address)
    client.force_login(user)
    return client


def change(client: Client, email: str, follow: bool = False, **more):
    body = {"email": email, "password": PASSWORD, **more}
    return client.post("/accounts/email/", body, follow=follow)


def link_in(message) -> str:
    (url,) = re.findall(r"https?://\S+", message.body)
    return url.split("testserver", 1)[1]


def address_of(user) -> str:
    return get_user_model().objects.get(pk=user.pk).email


def messages_of(response) -> str:
    return " ".join(str(m) for m in response.context["messages"])


def test_a_new_address_is_mailed_a_link_and_used_once_its_page_is_confirmed(alice) -> None:
    client = signed_in(alice)
    asked = change(client, "new@example.org")
    assert asked.status_code == 302 and asked["Location"] == "/accounts/"
    assert address_of(alice) == "alice@example.org"  # nothing stored yet
    (message,) = mail.outbox
    assert message.to == ["new@example.org"] and "alice" in message.subject
    account = client.get("/accounts/").content.decode()
    assert "We sent a link to new@example.org; your address stays alice@example.org" in account
    assert "Email address: alice@example.org" in account
    page = client.get("/accounts/email/").content.decode()
    assert "Waiting for confirmation: <strong>new@example.org</strong>" in page

    # opening the link (a mail program's preview too) changes nothing: its button does
    link = link_in(message)
    shown = client.get(link)
    assert shown.status_code == 200 and address_of(alice) == "alice@example.org"
    assert "Make <strong>new@example.org</strong> the email address" in shown.content.decode()
    done = client.post(link, follow=True)
    assert done.redirect_chain == [("/accounts/", 302)]
    assert "Your email address is now new@example.org." in done.content.decode()
    assert address_of(alice) == "new@example.org"
    assert "Email address: new@example.org" in done.content.decode()
    assert "Waiting for confirmation" not in client.get("/accounts/email/").content.decode()
    # used once: the address it was bound to is gone
    again = client.post(link)
    assert again.status_code == 400
    assert "new@example.org is already your email address" in again.content.decode()


def test_the_link_needs_its_account_signed_in(alice, bob) -> None:
    change(signed_in(alice), "new@example.org")
    link = link_in(mail.outbox[0])
    # a stranger who got the mail (a mistyped address) cannot make it the account's
    anonymous = Client().post(link)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")
    other = signed_in(bob).post(link)
    assert other.status_code == 400 and "This link is for another account" in (
        other.content.decode()
    )
    assert address_of(alice) == "alice@example.org"


def test_a_tampered_link_is_refused(alice) -> None:
    client = signed_in(alice)
    change(client, "new@example.org")
    token = link_in(mail.outbox[0]).split("/")[-2]
    # another address with the real link's time and signature
    payload = email_change.make_token(alice, "evil@example.org").rsplit(":", 2)[0]
    forged = ":".join([payload, *token.rsplit(":", 2)[1:]])
    for bad in (token[:-6], forged, "nonsense"):
        response = client.post(f"/accounts/email/confirm/{bad}/")
        assert response.status_code == 400
        assert "This link is not one this site made" in response.content.decode()
    assert address_of(alice) == "alice@example.org"


def test_a_link_older_than_its_max_age_is_refused(alice) -> None:
    days = email_change.CONFIRM_MAX_AGE.days
    then = time.time() - email_change.CONFIRM_MAX_AGE.total_seconds() - 60
    with mock.patch("django.core.signing.time.time", return_value=then):
        old = email_change.make_token(alice, "new@example.org")
    fresh = email_change.make_token(alice, "new@example.org")
    client = signed_in(alice)
    response = client.post(f"/accounts/email/confirm/{old}/")
    assert response.status_code == 400
    assert f"This link is more than {days} days old" in response.content.decode()
    assert address_of(alice) == "alice@example.org"
    assert client.get(f"/accounts/email/confirm/{fresh}/").status_code == 200


@pytest.mark.parametrize("what", ["another address confirmed", "password changed"])
def test_a_link_dies_once_the_address_or_the_password_changed(alice, what) -> None:
    client = signed_in(alice)
    first = email_change.make_token(alice, "first@example.org")
    if what == "password changed":
        alice.set_password("another-pass-456")
        alice.save()
        client.force_login(alice)
    else:
        client.post(f"/accounts/email/confirm/{email_change.make_token(alice, 'x@example.org')}/")
        assert address_of(alice) == "x@example.org"
    response = client.post(f"/accounts/email/confirm/{first}/")
    assert response.status_code == 400
    assert "your email address or password changed since it was sent" in (response.content.decode())
    assert address_of(alice) != "first@example.org"


def test_removing_the_address_is_immediate_and_mails_nothing(alice) -> None:
    response = change(signed_in(alice), "", follow=True)
    assert "Your email address is removed" in messages_of(response)
    assert address_of(alice) == "" and mail.outbox == []


def test_the_same_address_again_mails_nothing(alice) -> None:
    response = change(signed_in(alice), "alice@example.org", follow=True)
    assert "alice@example.org is your email address already: nothing was mailed." in (
        messages_of(response)
    )
    assert mail.outbox == []


def test_sign_up_with_an_address_stores_it_only_once_confirmed() -> None:
    client = Client(REMOTE_ADDR="10.7.0.2")
    response = client.post(
        "/accounts/signup/",
        {
            "username": "erin",
            "email": "erin@example.org",
            "password1": "a-long-pass-42x",
            "password2": "a-long-pass-42x",
        },
        follow=True,
    )
    assert "Welcome, erin" in messages_of(response)
    assert "We sent a link to erin@example.org; the account has no address yet" in (
        messages_of(response)
    )
    erin = get_user_model().objects.get(username="erin")
    assert erin.email == ""
    (message,) = mail.outbox
    assert message.to == ["erin@example.org"]
    client.post(link_in(message))
    assert address_of(erin) == "erin@example.org"


def test_bot_news_with_a_pending_address_goes_to_the_confirmed_one(alice) -> None:
    client = signed_in(alice)
    response = change(client, "new@example.org", bot_news="on", follow=True)
    assert "Bot news goes to alice@example.org until the new address is confirmed." in (
        messages_of(response)
    )
    assert MailSettings.objects.get(user=alice).bot_news
    alice.email = ""
    alice.save()
    response = change(client, "other@example.org", bot_news="on", follow=True)
    assert "Bot news will go to the new address once it is confirmed." in messages_of(response)


def test_link_mails_are_limited_like_password_resets(settings, alice, bob) -> None:
    settings.PASSWORD_RESETS_PER_ADDRESS_PER_HOUR = 3
    # one inbox gets one link mail an hour, a password reset's or a confirmation's
    Client(REMOTE_ADDR="10.8.0.1").post("/accounts/password/reset/", {"email": "x@example.org"})
    assert len(mail.outbox) == 0  # no account has it, but the inbox was asked for
    again = change(signed_in(alice, "10.8.0.2"), "x@example.org", follow=True)
    assert "x@example.org got a mail from this site less than an hour ago" in messages_of(again)
    assert mail.outbox == [] and address_of(alice) == "alice@example.org"
    # and one client address asks for a few an hour, of either kind
    Client(REMOTE_ADDR="10.8.0.3").post("/accounts/password/reset/", {"email": "bob@example.org"})
    client = signed_in(alice, "10.8.0.3")
    for n in range(2):
        change(client, f"a{n}@example.org")
    assert len(mail.outbox) == 3
    refused = change(client, "a9@example.org")
    assert refused.status_code == 429
    assert "3 password resets or new addresses to confirm were asked for from your address" in (
        refused.content.decode()
    )
    assert len(mail.outbox) == 3 and address_of(alice) == "alice@example.org"


def test_a_mail_server_that_fails_is_logged_and_said(alice, monkeypatch, caplog) -> None:
    from django.core.mail.backends.locmem import EmailBackend

    def refuse(self, messages):
        raise smtplib.SMTPRecipientsRefused({"new@example.org": (550, b"no")})

    monkeypatch.setattr(EmailBackend, "send_messages", refuse)
    client = signed_in(alice)
    response = change(client, "new@example.org", follow=True)
    assert response.status_code == 200
    assert "The mail to new@example.org could not be sent" in messages_of(response)
    assert "confirmation mail for user" in caplog.text
    assert address_of(alice) == "alice@example.org"
    monkeypatch.undo()  # the server is back: the failed try did not use up the hour
    change(client, "new@example.org")
    assert len(mail.outbox) == 1


def test_a_site_that_sends_no_mail_cannot_take_a_new_address(settings, alice) -> None:
    settings.SENDS_EMAIL = False
    client = signed_in(alice)
    refused = change(client, "new@example.org")
    assert refused.status_code == 200 and "this site sends no mail" in refused.content.decode()
    assert 'name="email"' not in Client().get("/accounts/signup/").content.decode()
    change(client, "")
    assert address_of(alice) == "" and mail.outbox == []
