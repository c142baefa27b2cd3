"""The challenge page (bots/<id>/challenge/), the list of your challenges
(accounts/challenges/) and the bot page's match filter. The rules themselves
are ladder/challenges.py's, shared with POST /api/challenges."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

from ladder.bots import create_bot
from ladder.matches import create_match
from ladder.models import Bot, Match
from tests.web.conftest import make_bot, play

pytestmark = pytest.mark.django_db

ESR = "edel-stein-reich"


@pytest.fixture
def cast(alice, bob):
    """alice's Splendor Duel bots `ace` and `ace2`, bob's `bee`, an example
    bot, a disabled bot, a bot without a version, and Edel, Stein & Reich bots
    (alice's `red`, bob's `green` and `blue`)."""
    bots = {
        "ace": make_bot(alice, "ace"),
        "ace2": make_bot(alice, "ace2"),
        "bee": make_bot(bob, "bee"),
        "example": make_bot(bob, "builtin-greedy"),
        "off": make_bot(bob, "off"),
        "empty": create_bot(bob, "splendor-duel", "empty"),
        "red": make_bot(alice, "red", game=ESR),
        "green": make_bot(bob, "green", game=ESR),
        "blue": make_bot(bob, "blue", game=ESR),
    }
    Bot.objects.filter(pk=bots["example"].pk).update(is_builtin=True)
    Bot.objects.filter(pk=bots["off"].pk).update(enabled=False)
    return bots


@pytest.fixture
def as_alice(client: Client, alice) -> Client:
    client.force_login(alice)
    return client


def page_url(bot: Bot) -> str:
    return f"/bots/{bot.pk}/challenge/"


def text_of(response) -> str:
    return html.unescape(response.content.decode())


def refusal(response) -> str:
    """The form's refusal, as shown (its error summary)."""
    found = re.search(r'<div [^>]*id="error-summary"[^>]*>(.*?)</div>', text_of(response), re.S)
    assert found, "no refusal shown"
    return re.sub(r"<[^>]+>", "", found.group(1))


def challenges() -> int:
    return Match.objects.filter(kind=Match.Kind.CHALLENGE).count()


# --- who sees the button and the form ---------------------------------------------


def test_the_owner_of_a_ready_bot_gets_the_button_and_the_form(as_alice, cast) -> None:
    ace = cast["ace"]
    assert f'href="{page_url(ace)}"' in as_alice.get(f"/bots/{ace.pk}/").content.decode()
    response = as_alice.get(page_url(ace))
    assert response.status_code == 200
    text = text_of(response)
    assert 'class="card form challenge-form"' in text
    options = dict(re.findall(r'<option value="(\d+)"[^>]*>([^<]+)</option>', text))
    # the same game, enabled, with a ready version: own, example and others' bots
    assert set(options) == {str(cast[n].pk) for n in ("ace2", "bee", "example")}
    assert options[str(cast["bee"].pk)] == "bee (bob)"
    assert 'name="option_step_cap"' in text and 'name="option_first_seat"' in text


def test_edel_stein_reich_asks_for_two_to_four_opponents(as_alice, cast) -> None:
    text = text_of(as_alice.get(page_url(cast["red"])))
    seats = re.findall(r'<select name="(opponent_\d)"([^>]*)>', text)
    assert [name for name, _ in seats] == ["opponent_1", "opponent_2", "opponent_3", "opponent_4"]
    assert ["required" in attrs for _, attrs in seats] == [True, True, False, False]
    assert 'name="option_components"' in text and 'name="option_money_visible"' in text


def test_the_opponents_are_grouped_and_a_refused_choice_stays_chosen(as_alice, alice, cast) -> None:
    """Each seat's list: your bots, the examples, other players' (by name);
    after a refusal each seat shows what was chosen, and a posted value that
    is no bot is neither chosen nor copied into the page unescaped."""
    make_bot(alice, "red2", game=ESR)
    text = as_alice.get(page_url(cast["red"])).content.decode()
    selects = re.findall(r'<select name="opponent_\d"[^>]*>(.*?)</select>', text, re.S)
    assert len(selects) == 4 and len(set(selects)) == 1
    groups = re.findall(r'<optgroup label="([^"]+)">(.*?)</optgroup>', selects[0], re.S)
    named = [(label, re.findall(r">([^<]+)</option>", body)) for label, body in groups]
    assert named == [
        ("Your bots", ["red2"]),
        ("Other players&#x27; bots", ["blue (bob)", "green (bob)"]),
    ]
    posted = {
        "opponent_1": cast["green"].pk,
        "opponent_2": '"><script>alert(1)</script>',
        "opponent_3": cast["blue"].pk,
    }
    response = as_alice.post(page_url(cast["red"]), posted)
    assert response.status_code == 422  # no bot id in seat 3
    page = response.content.decode()
    assert "<script>alert(1)" not in page
    selects = re.findall(r'<select name="(opponent_\d)"[^>]*>(.*?)</select>', page, re.S)
    chosen = {name: re.findall(r'<option value="(\d*)" selected>', body) for name, body in selects}
    assert chosen == {
        "opponent_1": [str(cast["green"].pk)],
        "opponent_2": [],
        "opponent_3": [str(cast["blue"].pk)],
        "opponent_4": [],
    }


@pytest.mark.parametrize("who", ["bob", "anonymous"])
def test_others_get_neither_button_nor_form(client: Client, bob, cast, who) -> None:
    if who == "bob":
        client.force_login(bob)
    ace = cast["ace"]
    assert page_url(ace) not in client.get(f"/bots/{ace.pk}/").content.decode()
    response = client.get(page_url(ace))
    if who == "anonymous":
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    else:
        assert response.status_code == 403
        assert 'name="opponent_1"' not in text_of(response)
        assert "You can challenge only with a bot of your own" in text_of(response)


@pytest.mark.parametrize("state", ["no_version", "disabled"])
def test_a_bot_that_cannot_play_gets_no_button_and_no_form(
    client: Client, bob, cast, state
) -> None:
    client.force_login(bob)
    bot = cast["empty"] if state == "no_version" else cast["off"]
    assert page_url(bot) not in client.get(f"/bots/{bot.pk}/").content.decode()
    response = client.get(page_url(bot))
    assert response.status_code == 409
    text = text_of(response)
    assert 'name="opponent_1"' not in text
    assert ("no ready version" if state == "no_version" else "is disabled") in text


# --- a challenge asked for ----------------------------------------------------------


def test_a_valid_post_queues_an_unrated_challenge_and_leads_to_it(as_alice, alice, cast) -> None:
    red, green, blue = cast["red"], cast["green"], cast["blue"]
    response = as_alice.post(
        page_url(red),
        {
            "opponent_1": blue.pk,
            "opponent_2": "",  # an empty seat in between is skipped
            "opponent_3": green.pk,
            "option_money_visible": "false",
            "option_barter_winner": "more_gems",
        },
    )
    match = Match.objects.get(kind=Match.Kind.CHALLENGE)
    assert response.status_code == 302 and response["Location"] == f"/matches/{match.pk}/"
    assert (match.status, match.rated, match.requested_by) == ("queued", False, alice)
    seats = [s.version for s in match.seats.order_by("seat")]
    assert seats == [red.active_version, blue.active_version, green.active_version]
    assert match.options["money_visible"] is False
    assert match.options["barter_winner"] == "more_gems"
    assert match.options["untaken_event"] == "discard"  # the rest as on the ladder
    shown = text_of(as_alice.get(response["Location"]))
    assert f"Challenge queued: match #{match.pk}" in shown


def test_a_challenge_may_shorten_splendor_duel(as_alice, cast) -> None:
    ace, bee = cast["ace"], cast["bee"]
    response = as_alice.post(page_url(ace), {"opponent_1": bee.pk, "option_step_cap": "300"})
    assert response.status_code == 302
    match = Match.objects.get(kind=Match.Kind.CHALLENGE)
    assert match.options["step_cap"] == 300 and match.seat_count == 2


@pytest.mark.parametrize(
    "case, status, message",
    [
        ("no_opponent", 422, "splendor-duel is played by 2 seats: choose 1 opponents, not 0"),
        ("one_opponent_for_esr", 422, "choose 2, 3, 4 opponents, not 1"),
        ("other_game", 422, "bot green plays edel-stein-reich, not splendor-duel"),
        ("disabled", 409, "bot off is disabled"),
        ("no_version", 409, "bot empty has no ready version yet"),
        ("twice", 422, "each bot may take only one seat"),
        ("bad_option", 422, "option 'barter_winner' of edel-stein-reich: expected one of"),
        ("server_file", 422, "give the data as a JSON object"),
        ("longer", 422, "may shorten splendor-duel but not lengthen it: at most 2000 steps"),
        ("not_a_bot_id", 422, "no bot id"),
        # was a 500: json.loads raised RecursionError (security QA)
        ("nested_too_deeply", 400, "nested too deeply"),
    ],
)
def test_invalid_posts_are_refused_with_a_message(as_alice, cast, case, status, message) -> None:
    bot, data = cast["ace"], {"opponent_1": cast["bee"].pk}
    if case == "no_opponent":
        data = {"opponent_1": ""}
    elif case == "one_opponent_for_esr":
        bot, data = cast["red"], {"opponent_1": cast["green"].pk}
    elif case == "other_game":
        data = {"opponent_1": cast["green"].pk}
    elif case == "disabled":
        data = {"opponent_1": cast["off"].pk}
    elif case == "no_version":
        data = {"opponent_1": cast["empty"].pk}
    elif case == "twice":
        bot = cast["red"]
        data = {"opponent_1": cast["green"].pk, "opponent_2": cast["green"].pk}
    elif case == "bad_option":
        bot = cast["red"]
        data = {
            "opponent_1": cast["green"].pk,
            "opponent_2": cast["blue"].pk,
            "option_barter_winner": "nobody",
        }
    elif case == "server_file":
        bot = cast["red"]
        data = {
            "opponent_1": cast["green"].pk,
            "opponent_2": cast["blue"].pk,
            "option_components": "/etc/passwd",
        }
    elif case == "longer":
        data["option_step_cap"] = "2001"
    elif case == "not_a_bot_id":
        data = {"opponent_1": "bee"}
    elif case == "nested_too_deeply":
        bot = cast["red"]
        data = {
            "opponent_1": cast["green"].pk,
            "opponent_2": cast["blue"].pk,
            "option_components": "[" * 5000 + "]" * 5000,
        }
    response = as_alice.post(page_url(bot), data)
    assert response.status_code == status
    assert message.lower() in refusal(response).lower()
    assert challenges() == 0
    # the choices are kept
    text = text_of(response)
    for name, value in data.items():
        if name.startswith("option_") and value:
            assert str(value) in text, name
    if case == "longer":
        assert f'<option value="{cast["bee"].pk}" selected>' in text
        assert '<details class="options" open>' in text  # the refused option is in view


def test_another_users_bot_cannot_challenge(client: Client, bob, cast) -> None:
    client.force_login(bob)
    response = client.post(page_url(cast["ace"]), {"opponent_1": cast["bee"].pk})
    assert response.status_code == 403
    assert "You can challenge only with a bot of your own" in text_of(response)
    assert challenges() == 0


def test_the_open_challenge_limit_says_what_the_api_says(as_alice, cast, settings) -> None:
    settings.MAX_OPEN_CHALLENGES = 1
    ace, bee = cast["ace"], cast["bee"]
    assert as_alice.post(page_url(ace), {"opponent_1": bee.pk}).status_code == 302
    response = as_alice.post(page_url(ace), {"opponent_1": bee.pk, "option_step_cap": "100"})
    assert response.status_code == 429
    api = as_alice.post(
        "/api/challenges", {"bot": ace.pk, "opponents": [bee.pk]}, "application/json"
    )
    expected = api.json()["error"]["message"]
    assert expected.startswith("you have 1 challenges queued or running; the limit is 1")
    assert expected in refusal(response)  # word for word
    assert 'value="100"' in text_of(response)  # kept
    assert challenges() == 1


def test_a_post_without_the_csrf_token_is_refused(alice, cast) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    response = client.post(page_url(cast["ace"]), {"opponent_1": cast["bee"].pk})
    assert response.status_code == 403
    assert challenges() == 0
    # with the token the page gives, the same post goes through
    form = client.get(page_url(cast["ace"])).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    data = {"opponent_1": cast["bee"].pk, "csrfmiddlewaretoken": token}
    assert client.post(page_url(cast["ace"]), data).status_code == 302
    assert challenges() == 1


# --- the list of your challenges ----------------------------------------------------


def test_the_list_shows_your_challenges_newest_first_and_not_others(
    as_alice, alice, bob, cast, monkeypatch
) -> None:
    ace, ace2, bee = cast["ace"], cast["ace2"], cast["bee"]
    red, green, blue = cast["red"], cast["green"], cast["blue"]
    first = create_match(
        "splendor-duel",
        [ace.active_version, bee.active_version],
        kind=Match.Kind.CHALLENGE,
        rated=False,
        requested_by=alice,
    )
    Match.objects.filter(pk=first.pk).update(status=Match.Status.ERRORED)
    second = create_match(
        ESR,
        [red.active_version, green.active_version, blue.active_version],
        kind=Match.Kind.CHALLENGE,
        rated=False,
        options={"money_visible": False},
        requested_by=alice,
    )
    bobs = create_match(
        "splendor-duel",
        [bee.active_version, ace2.active_version],
        kind=Match.Kind.CHALLENGE,
        rated=False,
        requested_by=bob,
    )
    play([ace, bee], [1, 2])  # a ladder match: not a challenge
    assert "/accounts/challenges/" in as_alice.get("/accounts/").content.decode()
    assert "/accounts/challenges/" in as_alice.get(f"/bots/{ace.pk}/").content.decode()
    text = text_of(as_alice.get("/accounts/challenges/"))
    listed = re.findall(r'<a href="/matches/(\d+)/">', text)
    assert listed == [str(second.pk), str(first.pk)]
    assert str(bobs.pk) not in listed
    assert "money_visible = false" in text
    assert "errored" in text and "queued" in text
    assert f'href="/bots/{green.pk}/">green</a>' in text

    monkeypatch.setattr("ladder.views_challenge.CHALLENGES_PAGE_SIZE", 1)
    page2 = text_of(as_alice.get("/accounts/challenges/?page=2"))
    assert re.findall(r'<a href="/matches/(\d+)/">', page2) == [str(first.pk)]
    assert "page 2 of 2" in page2


def test_the_list_shows_the_result(as_alice, alice, cast) -> None:
    ace, bee = cast["ace"], cast["bee"]
    match = play([ace, bee], [2, 1])
    Match.objects.filter(pk=match.pk).update(
        kind=Match.Kind.CHALLENGE, rated=False, rating_seq=None, requested_by=alice
    )
    text = text_of(as_alice.get("/accounts/challenges/"))
    assert "rank 2 of 2" in text and "bee won" in text


def test_the_list_needs_a_login(client: Client) -> None:
    response = client.get("/accounts/challenges/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


# --- the bot page's match filter ------------------------------------------------------


def test_the_bot_page_filters_its_matches_by_kind(client: Client, alice, cast) -> None:
    ace, bee = cast["ace"], cast["bee"]
    ladder = play([ace, bee], [1, 2])
    challenge = create_match(
        "splendor-duel",
        [ace.active_version, bee.active_version],
        kind=Match.Kind.CHALLENGE,
        rated=False,
        requested_by=alice,
    )
    validation = create_match(
        "splendor-duel",
        [bee.active_version, ace.active_version],
        kind=Match.Kind.VALIDATION,
        rated=False,
        validates=bee.active_version,
    )

    def listed(query: str) -> set[int]:
        text = client.get(f"/bots/{bee.pk}/{query}").content.decode()
        section = text.split('<h2 id="matches">')[1].split("<h2>")[0]
        return {int(n) for n in re.findall(r'<a href="/matches/(\d+)/">', section)}

    assert listed("") == {ladder.pk, challenge.pk}
    assert listed("?kind=challenge") == {challenge.pk}
    assert listed("?kind=ladder") == {ladder.pk}
    assert listed("?kind=validation") == {validation.pk}
    assert listed("?kind=nonsense") == {ladder.pk, challenge.pk}
    text = client.get(f"/bots/{bee.pk}/?kind=challenge").content.decode()
    assert '<strong aria-current="true">challenges</strong>' in text
