"""A new email address on a small phone, in Chromium: asked on the email
page, the link read from the mail file `make run` writes, confirmed with
the link page's button; the account shows the new address only then."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import (
    Browser,
    Page,
    expect,
    horizontal_overflow,
    shoot,
    widest_elements,
)
from tests.ladder.conftest import alice  # noqa: F401 (fixture)

pytestmark = pytest.mark.browser

SMALL_PHONE = {"width": 360, "height": 740}
NEW = "alice.with-a-rather-long-name@mail.example-university.org"


def fits(page: Page, name: str) -> None:
    shoot(page, f"email-{name}")
    overflow = horizontal_overflow(page)
    assert overflow == 0, f"{name}: {overflow}px too wide; widest: {widest_elements(page)}"


def test_a_new_address_is_used_once_the_mailed_link_is_confirmed(
    browser: Browser,
    alice,  # noqa: F811 (the fixture imported above)
    settings,
    tmp_path,
) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = tmp_path / "mail"
    page = browser.page
    page.set_viewport_size(SMALL_PHONE)
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("alice-pass-123")
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(re.compile(r"/accounts/$"))

    page.get_by_role("link", name="Email address").click()
    page.get_by_label("Email address").fill(NEW)
    page.get_by_label("Your password").fill("alice-pass-123")
    fits(page, "1-form")
    page.get_by_role("button", name="Save").click()
    expect(page).to_have_url(re.compile(r"/accounts/$"))
    expect(page.locator(".messages")).to_contain_text(
        f"We sent a link to {NEW}; your address stays alice@example.org until you open it"
    )
    expect(page.get_by_text("Email address: alice@example.org.")).to_be_visible()
    fits(page, "2-sent")
    page.goto("/accounts/email/")
    expect(page.locator("#pending-email")).to_contain_text(f"Waiting for confirmation: {NEW}")
    fits(page, "3-pending")

    (mail_file,) = (tmp_path / "mail").iterdir()
    text = mail_file.read_text()
    assert f"To: {NEW}" in text
    (link,) = re.findall(r"http://\S+/accounts/email/confirm/\S+/", text)
    page.goto(link)
    expect(page.get_by_role("heading", level=1)).to_have_text("Confirm your email address")
    fits(page, "4-link")
    page.get_by_role("button", name=f"Use {NEW}").click()
    expect(page).to_have_url(re.compile(r"/accounts/$"))
    expect(page.locator(".messages")).to_contain_text(f"Your email address is now {NEW}.")
    expect(page.get_by_text(f"Email address: {NEW}.")).to_be_visible()
    fits(page, "5-confirmed")
