"""Forgot your password? A link by mail; the email address on the account page;
the current password asked again counts as a sign-in."""

from __future__ import annotations

import re
import smtplib

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from ladder.models import AuthAttempt

pytestmark = pytest.mark.django_db

NEW = "a-fresh-pass-77q"


@pytest.fixture
def carol(django_user_model):
    return django_user_model.objects.create_user(
        "carol", email="Carol@Example.org", password="carol-pass-123"
    )


def ask(email: str, address: str = "10.2.0.1"):
    return Client(REMOTE_ADDR=address).post("/accounts/password/reset/", {"email": email})


def link_in(message) -> str:
    (url,) = re.findall(r"https?://\S+", message.body)
    return url.split("testserver", 1)[1]


def test_a_forgotten_password_is_reset_by_the_link_mailed_to_the_account(carol) -> None:
    login = Client().get("/accounts/login/").content.decode()
    assert 'href="/accounts/password/reset/"' in login and "Forgot your password?" in login
    response = ask("carol@example.org")  # the address in other capitals
    assert response.status_code == 302 and response["Location"] == "/accounts/password/reset/sent/"
    (message,) = mail.outbox
    assert message.to == ["Carol@example.org"] and "carol" in message.subject
    client = Client()
    form = client.get(link_in(message), follow=True)
    assert "Choose a new password" in form.content.decode() and form.context["validlink"]
    done = client.post(form.redirect_chain[-1][0], {"new_password1": NEW, "new_password2": NEW})
    assert done.status_code == 302 and done["Location"] == "/accounts/password/reset/done/"
    assert Client().login(username="carol", password=NEW)
    # the link works once
    used = Client().get(link_in(message), follow=True).content.decode()
    assert "This link does not work any more" in used


def test_the_page_says_the_same_whether_or_not_an_account_has_the_address(carol) -> None:
    known, unknown = ask("carol@example.org"), ask("nobody@example.org", "10.2.0.2")
    assert (known.status_code, known["Location"]) == (unknown.status_code, unknown["Location"])
    assert len(mail.outbox) == 1
    sent = Client().get(unknown["Location"]).content.decode()
    assert "If an account has that email address" in sent


def test_resets_are_limited_per_address_and_one_mail_an_hour_per_inbox(settings, carol) -> None:
    settings.PASSWORD_RESETS_PER_ADDRESS_PER_HOUR = 3
    for address in ("10.3.0.1", "10.3.0.2", "10.3.0.3"):  # one inbox, asked from three places
        assert ask("carol@example.org", address).status_code == 302
    assert len(mail.outbox) == 1
    for _ in range(3):
        assert ask("someone@example.org", "10.3.0.9").status_code == 302
    refused = ask("carol@example.org", "10.3.0.9")
    assert refused.status_code == 429
    assert "3 password resets or new addresses to confirm were asked for from your address" in (
        refused.content.decode()
    )


def test_a_mail_server_that_fails_is_logged_not_a_server_error(carol, monkeypatch, caplog) -> None:
    from django.core.mail.backends.locmem import EmailBackend

    def refuse(self, messages):
        raise smtplib.SMTPRecipientsRefused({"Carol@example.org": (550, b"no")})

    monkeypatch.setattr(EmailBackend, "send_messages", refuse)
    response = ask("carol@example.org")
    assert response.status_code == 302
    assert "Failed to send password reset email" in caplog.text


def test_a_site_that_sends_no_mail_says_whom_to_ask(settings, carol) -> None:
    settings.SENDS_EMAIL = False
    page = Client().get("/accounts/password/reset/").content.decode()
    assert "This site sends no email" in page and 'name="email"' not in page
    assert ask("carol@example.org").status_code == 200 and mail.outbox == []


def test_a_reset_forgets_the_failed_sign_ins_of_the_account(settings, carol) -> None:
    settings.LOGIN_FAILURES_PER_ACCOUNT = 1
    Client(REMOTE_ADDR="10.4.0.1").post(
        "/accounts/login/", {"username": "carol", "password": "wrong"}
    )
    locked = Client(REMOTE_ADDR="10.4.0.1").post(
        "/accounts/login/", {"username": "carol", "password": "carol-pass-123"}
    )
    assert locked.status_code == 429
    ask("carol@example.org")
    client = Client(REMOTE_ADDR="10.4.0.1")
    form = client.get(link_in(mail.outbox[0]), follow=True)
    client.post(form.redirect_chain[-1][0], {"new_password1": NEW, "new_password2": NEW})
    again = Client(REMOTE_ADDR="10.4.0.1").post(
        "/accounts/login/", {"username": "carol", "password": NEW}
    )
    assert again.status_code == 302


def test_the_email_address_is_set_changed_and_removed_with_the_password(carol) -> None:
    client = Client()
    client.force_login(carol)
    account = client.get("/accounts/").content.decode()
    assert "Email address: Carol@example.org" in account and 'href="/accounts/email/"' in account
    wrong = client.post("/accounts/email/", {"email": "c@new.example", "password": "nope"})
    assert wrong.status_code == 200 and "entered incorrectly" in wrong.content.decode()
    changed = client.post(
        "/accounts/email/", {"email": "c@new.example", "password": "carol-pass-123"}, follow=True
    )
    assert "We sent a link to c@new.example" in changed.content.decode()  # test_email_change.py
    client.post(link_in(mail.outbox[0]))
    assert get_user_model().objects.get(pk=carol.pk).email == "c@new.example"
    bad = client.post("/accounts/email/", {"email": "not an address", "password": "carol-pass-123"})
    assert bad.status_code == 200 and "valid email address" in bad.content.decode()
    assert get_user_model().objects.get(pk=carol.pk).email == "c@new.example"  # kept
    removed = client.post(
        "/accounts/email/", {"email": "", "password": "carol-pass-123"}, follow=True
    )
    assert "can no longer be reset by mail" in removed.content.decode()
    assert "No email address" in client.get("/accounts/").content.decode()


@pytest.mark.parametrize(
    ("path", "body"),
    [
        (
            "/accounts/password/",
            {"old_password": "guess", "new_password1": NEW, "new_password2": NEW},
        ),
        ("/accounts/email/", {"email": "x@example.org", "password": "guess"}),
    ],
)
def test_the_current_password_asked_again_counts_as_a_sign_in(settings, carol, path, body) -> None:
    settings.LOGIN_FAILURES_PER_ACCOUNT = 2
    client = Client(REMOTE_ADDR="10.5.0.1")
    client.force_login(carol)
    for _ in range(2):
        assert client.post(path, body).status_code == 200
    right = dict(body, **{k: "carol-pass-123" for k in ("old_password", "password") if k in body})
    refused = client.post(path, right)
    assert refused.status_code == 429
    assert "Too many failed sign-ins for this user name" in refused.content.decode()
    assert AuthAttempt.objects.filter(account="carol").count() == 2
    carol.refresh_from_db()
    assert carol.check_password("carol-pass-123") and carol.email == "Carol@example.org"


def test_the_faq_tells_a_user_who_forgot_the_password_what_to_do(settings) -> None:
    settings.LOGIN_FAILURES_PER_ACCOUNT = 7
    settings.LOGIN_FAILURE_WINDOW_MINUTES = 20
    page = Client().get("/docs/faq/").content.decode()
    assert 'href="/accounts/password/reset/"' in page
    assert "7 failed log-ins for one name from one address in 20 minutes" in page
    assert "this site sends no mail" not in page
    settings.SENDS_EMAIL = False
    assert "this site sends no mail" in Client().get("/docs/faq/").content.decode()


def test_bot_news_by_mail_is_chosen_on_the_email_page(carol) -> None:
    from ladder.models import MailSettings

    client = Client()
    client.force_login(carol)
    page = client.get("/accounts/email/").content.decode()
    assert 'type="checkbox" name="bot_news"' in page and "checked" not in page
    body = {"email": "", "bot_news": "on", "password": "carol-pass-123"}
    nowhere = client.post("/accounts/email/", body)
    assert "give an email address to be mailed at" in nowhere.content.decode()
    assert not MailSettings.objects.filter(user=carol).exists()
    done = client.post("/accounts/email/", dict(body, email="Carol@example.org"), follow=True)
    assert "You will be mailed when a bot of yours is paused" in done.content.decode()
    assert MailSettings.objects.get(user=carol).bot_news
    assert "checked" in client.get("/accounts/email/").content.decode()
    client.post("/accounts/email/", dict(body, email="Carol@example.org", bot_news=""))
    assert not MailSettings.objects.get(user=carol).bot_news
