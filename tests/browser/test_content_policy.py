"""The Content-Security-Policy (ladder/middleware.py) blocks nothing the site
itself needs: the pages, the admin's and the API browser's run with it. (Every
other browser test also fails on a blocked script or style: the `browser`
fixture collects Chromium's policy reports.)"""

from __future__ import annotations

import re

import pytest

from ladder.middleware import CONTENT_SECURITY_POLICY
from tests.browser.conftest import Browser, expect
from tests.web.conftest import make_bot, play

ADMIN_PASSWORD = "root-pass-123"


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_superuser("root", password=ADMIN_PASSWORD)


def test_the_admin_and_the_api_browser_run_under_the_policy(browser: Browser, staff) -> None:
    bot, other = make_bot(staff, "root-a"), make_bot(staff, "root-b")
    match = play([bot, other], [1, 2])
    page = browser.page
    response = page.goto("/admin/login/?next=/admin/")
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    page.get_by_label("Username").fill("root")
    page.get_by_label("Password").fill(ADMIN_PASSWORD)
    page.get_by_role("button", name=re.compile("Log in", re.I)).click()
    expect(page).to_have_url(re.compile(r"/admin/$"))
    for path in (
        "/admin/ladder/bot/",
        f"/admin/ladder/bot/{bot.pk}/change/",
        "/admin/ladder/match/",
        f"/admin/ladder/match/{match.pk}/change/",
        "/admin/auth/user/",
        f"/admin/auth/user/{staff.pk}/change/",
        "/admin/ladder/laddersettings/",
    ):
        assert page.goto(path).status == 200, path
        expect(page.locator("#content")).to_be_visible()
    # the change list's filters and actions are scripts of the admin's own
    page.goto("/admin/ladder/bot/")
    page.locator("#action-toggle").check()
    expect(page.locator(".action-counter")).to_contain_text("2 of 2 selected")
    page.goto("/api/docs")
    expect(page.locator(".swagger-ui .info .title")).to_be_visible()
    expect(page.locator(".opblock").first).to_be_visible()
    # a page of the site with its own scripts: the replay viewer
    page.goto(f"/matches/{match.pk}/")
    expect(page.locator("#replay")).to_be_visible()
