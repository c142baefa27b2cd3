"""The forms for screen readers (accessibility audit, defects 1, 2 and 13):
every help text and error that Django names in a widget's aria-describedby
exists under that id; a form shown again with errors starts with a summary
that takes the focus, instead of a field's autofocus."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.web.conftest import make_bot
from tests.web.page_html import Page

pytestmark = pytest.mark.django_db

#: the upload form sent as the browser sends it with nothing filled in (an empty POST
#: would leave the form unbound)
EMPTY_UPLOAD = {"bot": "", "game": "", "name": ""}


def described_fields(page: Page) -> dict[str, list[str]]:
    """Each field with an aria-describedby: its id → the texts it points to."""
    return {
        e.attrs["id"]: [page.by_id[ref].text() for ref in e.attrs["aria-describedby"].split()]
        for e in page.find_all(aria_describedby=True)
        if all(ref in page.by_id for ref in e.attrs["aria-describedby"].split())
    }


def check_references(response) -> Page:
    page = Page(response.content)
    assert page.missing_references() == [], response.request["PATH_INFO"]
    return page


@pytest.fixture
def alice_in(client: Client, alice) -> Client:
    client.force_login(alice)
    return client


def form_pages(client: Client, alice) -> list:
    """Every form page, as first shown and as shown again after a refused submit."""
    esr = make_bot(alice, "red", game="edel-stein-reich")
    anonymous = Client()
    return [
        anonymous.get("/accounts/signup/"),
        anonymous.post(
            "/accounts/signup/", {"username": "x", "password1": "a-b-c-1234", "password2": "z"}
        ),
        anonymous.get("/accounts/login/"),
        anonymous.post("/accounts/login/", {"username": "alice", "password": "wrong"}),
        client.get("/accounts/password/"),
        client.post("/accounts/password/", {"old_password": "no", "new_password1": "x"}),
        client.get("/accounts/email/"),
        client.post("/accounts/email/", {"email": "not an address", "password": ""}),
        anonymous.get("/accounts/password/reset/"),
        anonymous.post("/accounts/password/reset/", {"email": "nope"}),
        client.get("/accounts/tokens/"),
        client.post("/accounts/tokens/", {"name": ""}),
        client.get("/upload/"),
        client.post("/upload/", EMPTY_UPLOAD),
        client.post(
            "/upload/",
            {"game": "splendor-duel", "name": "b", "file": SimpleUploadedFile("main.py", b"(")},
        ),
        client.get(f"/bots/{esr.pk}/challenge/"),
        client.post(f"/bots/{esr.pk}/challenge/", {"option_untaken_event": "x" * 201}),
    ]


def test_every_described_by_and_label_id_exists_on_every_form_page(alice_in, alice) -> None:
    for response in form_pages(alice_in, alice):
        check_references(response)


def refused_signup():
    """A sign-up refused for its two passwords that differ."""
    return Client().post(
        "/accounts/signup/",
        {"username": "dave", "password1": "a-long-pass-42x", "password2": "other-pass-42x"},
    )


def test_help_and_errors_are_what_the_fields_point_to(alice_in, alice) -> None:
    signup = check_references(refused_signup())
    fields = described_fields(signup)
    assert "150 characters or fewer" in fields["id_username"][0]
    assert any("at least 8 characters" in t for t in fields["id_password1"])
    assert fields["id_password2"][-1] == "The two password fields didn’t match."
    assert signup.by_id["id_password2"].attrs["aria-invalid"] == "true"

    upload = check_references(alice_in.post("/upload/", EMPTY_UPLOAD))
    fields = described_fields(upload)
    assert fields["id_file"][-1] == "This field is required."
    assert fields["id_name"][-1] == "name the new bot (or choose one of your bots)"
    assert fields["id_game"] == ["choose the game of the new bot"]

    esr = make_bot(alice, "red", game="edel-stein-reich")
    challenge = check_references(
        alice_in.post(f"/bots/{esr.pk}/challenge/", {"option_untaken_event": "x" * 201})
    )
    fields = described_fields(challenge)
    help_text, error = fields["id_option_untaken_event"]
    assert "Empty: as on the ladder" in help_text
    assert "at most 200 characters" in error
    options = [e.attrs["id"] for e in challenge.find_all(name=True) if "option_" in e.attrs["name"]]
    assert options and all(fields[i][0] for i in options), "every option is read with its help"


def test_the_file_input_has_a_label(alice_in) -> None:
    page = Page(alice_in.get("/upload/").content)
    (label,) = page.find_all("label", for_="id_file")
    assert label.text() == "Drop main.py or a .zip here, or choose a file:"


def summary_of(page: Page) -> tuple:
    (summary,) = page.find_all(id="error-summary")
    links = {a.attrs["href"]: a.text() for a in summary.find_all("a")}
    return summary, links


def test_a_refused_form_starts_with_a_summary_that_takes_the_focus(alice_in, alice) -> None:
    anonymous = Client()
    signup = Page(refused_signup().content)
    summary, links = summary_of(signup)
    assert summary.attrs["role"] == "alert" and "autofocus" in summary.attrs
    assert summary.attrs["tabindex"] == "-1"
    assert links == {
        "#id_password2_label": "Password confirmation: The two password fields didn’t match."
    }
    # Django's autofocus on the username would take the focus back from the summary
    assert [e.attrs["id"] for e in signup.find_all(autofocus=True)] == ["error-summary"]
    assert (
        "autofocus" in Page(anonymous.get("/accounts/signup/").content).by_id["id_username"].attrs
    ), "a fresh form keeps its autofocus"

    upload = Page(alice_in.post("/upload/", EMPTY_UPLOAD).content)
    summary, links = summary_of(upload)
    assert links == {
        "#id_game_label": "Game: choose the game of the new bot",
        "#id_name_label": "Name: name the new bot (or choose one of your bots)",
        "#id_file_label": "Bot file: This field is required.",
    }
    for href in links:  # each leads to the field's label, the field next
        label = upload.by_id[href[1:]]
        assert label.tag == "label" and label.attrs["for"] == href[1:].removesuffix("_label")

    login = Page(anonymous.post("/accounts/login/", {"username": "a", "password": "b"}).content)
    summary, links = summary_of(login)
    assert "correct username and password" in summary.text() and not links
    assert [e.attrs["id"] for e in login.find_all(autofocus=True)] == ["error-summary"]


def test_refusals_of_a_valid_form_say_so_in_the_summary(alice_in, alice) -> None:
    upload = Page(
        alice_in.post(
            "/upload/",
            {"game": "splendor-duel", "name": "b", "file": SimpleUploadedFile("main.py", b"(")},
        ).content
    )
    summary, links = summary_of(upload)
    text = summary.text()
    assert text.startswith("Refused: main.py has a syntax error")
    assert text.endswith("Nothing was stored; fix the file and upload it again.")

    ace = make_bot(alice, "ace")
    challenge = Page(alice_in.post(f"/bots/{ace.pk}/challenge/", {"opponent_1": ""}).content)
    summary, links = summary_of(challenge)
    assert summary.text().startswith("Refused:") and summary.text().endswith("No match was queued.")
