"""The operator's admin (every model has its pages, the actions work) and seed_demo."""

from __future__ import annotations

import io
import os
from datetime import timedelta

import pytest
from django.apps import apps
from django.contrib import admin
from django.core.files.base import ContentFile
from django.urls import reverse
from django.utils import timezone

from ladder import admin_matches
from ladder import bots as bot_service
from ladder.bots import add_version, create_bot, install_builtin
from ladder.matches import create_match
from ladder.models import (
    ApiToken,
    Bot,
    BotVersion,
    Counter,
    GameFit,
    LadderSettings,
    LiveStep,
    Match,
    MatchSeat,
    RatingHistory,
)
from ladder.results import apply_ratings, replay_name
from ladder.tokens import create_token

pytestmark = pytest.mark.django_db


def url(model, view: str, *args) -> str:
    return reverse(f"admin:ladder_{model._meta.model_name}_{view}", args=args)


def act(client, model, action: str, objects) -> str:
    """Run an admin action on `objects`; the page's message after the redirect."""
    response = client.post(
        url(model, "changelist"),
        {"action": action, "_selected_action": [o.pk for o in objects]},
        follow=True,
    )
    assert response.status_code == 200
    return " ".join(str(m) for m in response.context["messages"])


def played(lineup, rated: bool = True) -> Match:
    """A finished match of `lineup`, seat 0 winning, rated like a worker rates it."""
    match = create_match("splendor-duel", lineup, rated=rated)
    seats = list(match.seats.select_related("version").order_by("seat"))
    for seat in seats:
        seat.rank = seat.seat + 1
        seat.save()
    match.status = Match.Status.FINISHED
    match.finished_at = timezone.now()
    if rated:
        apply_ratings(match, seats)
        MatchSeat.objects.bulk_update(seats, ["elo_before", "elo_change"])
    match.save()
    return match


@pytest.fixture
def finished_match():
    a = install_builtin("splendor-duel", "random", bot_name="adm-a")
    b = install_builtin("splendor-duel", "random", bot_name="adm-b")
    match = create_match("splendor-duel", [a.active_version, b.active_version], seed=77)
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.FINISHED, finished_at=timezone.now()
    )
    match.refresh_from_db()
    seats = list(match.seats.order_by("seat"))
    for seat, rank in zip(seats, (1, 2), strict=True):
        seat.rank = rank
        seat.save()
    LiveStep.objects.create(match=match, step=0, data={"seat": 0})
    return match


def test_every_ladder_model_has_working_pages(admin_client, alice, finished_match) -> None:
    LadderSettings.get()
    create_token(alice, "laptop")
    RatingHistory.objects.create(
        bot=finished_match.seats.first().version.bot,
        match=finished_match,
        version=finished_match.seats.first().version,
        seq=1,
        elo_before=1500,
        elo_after=1516,
    )
    for model in apps.get_app_config("ladder").get_models():
        assert admin.site.is_registered(model), f"{model.__name__} has no admin"
        response = admin_client.get(url(model, "changelist"))
        assert response.status_code == 200, model.__name__
        row = model.objects.first()
        if row is not None:
            response = admin_client.get(url(model, "change", row.pk))
            assert response.status_code == 200, model.__name__


#: Rows only the platform may create, and those nobody may delete by hand.
NO_ADD = ["WorkerHeartbeat", "BotVersion", "Bot", "Rating", "RatingHistory", "GameFit", "Match"]
NO_DELETE = ["Rating", "RatingHistory", "GameFit", "LadderSettings", "Counter", "MatchSeat"]


def test_platform_rows_cannot_be_made_or_removed_by_hand(admin_client, finished_match) -> None:
    LadderSettings.get()
    seat = finished_match.seats.first()
    RatingHistory.objects.create(
        bot=seat.version.bot,
        match=finished_match,
        version=seat.version,
        seq=1,
        elo_before=1500,
        elo_after=1516,
    )
    GameFit.objects.create(game="splendor-duel", matches=1)
    Counter.objects.get_or_create(name="rating")
    models = {m.__name__: m for m in apps.get_app_config("ladder").get_models()}
    for name in NO_ADD:
        assert admin_client.get(url(models[name], "add")).status_code == 403, name
        assert admin_client.post(url(models[name], "add"), {}).status_code == 403, name
    for name in NO_DELETE:
        row = models[name].objects.first()
        assert row is not None, name
        delete = url(models[name], "delete", row.pk)
        assert admin_client.post(delete, {"post": "yes"}).status_code == 403, name
        assert models[name].objects.filter(pk=row.pk).exists(), name


def test_pause_and_resume_the_ladder(admin_client) -> None:
    row = LadderSettings.get()
    LadderSettings.objects.update(updated_at=timezone.now() - timedelta(days=1))
    assert "paused" in act(admin_client, LadderSettings, "pause_ladder", [row])
    paused = LadderSettings.get()
    assert paused.paused and timezone.now() - paused.updated_at < timedelta(minutes=1)
    act(admin_client, LadderSettings, "resume_ladder", [row])
    resumed = LadderSettings.get()
    assert not resumed.paused and resumed.updated_at > paused.updated_at
    # the instance id is shown, never editable
    page = admin_client.get(url(LadderSettings, "change", row.pk)).content.decode()
    assert row.instance in page and 'name="instance"' not in page


def test_disable_and_enable_bots(admin_client) -> None:
    bot = install_builtin("splendor-duel", "random", bot_name="adm-c")
    other = install_builtin("splendor-duel", "random", bot_name="adm-c2")
    queued = create_match("splendor-duel", [other.active_version, bot.active_version])
    challenge = create_match(
        "splendor-duel", [other.active_version, bot.active_version], kind="challenge", rated=False
    )
    validation = create_match(
        "splendor-duel", [bot.active_version, other.active_version], kind="validation"
    )
    Bot.objects.filter(pk=bot.pk).update(paused_reason="3 faults in a row", consecutive_faults=3)
    message = act(admin_client, Bot, "disable_bots", [bot])
    assert (
        "1 bots disabled. 2 of their queued ladder, challenge and tournament matches cancelled."
        in message
    )
    bot.refresh_from_db()
    assert not bot.enabled
    for match in (queued, challenge):  # a challenge asked for before plays no disabled bot
        match.refresh_from_db()
        assert match.status == Match.Status.CANCELLED
    validation.refresh_from_db()
    assert validation.status == Match.Status.QUEUED  # an upload is still decided
    act(admin_client, Bot, "enable_bots", [bot])
    bot.refresh_from_db()
    assert bot.enabled and bot.paused_reason == "" and bot.consecutive_faults == 0


def change_form_data(response) -> dict:
    """What the browser would send back from an admin change page, unchanged."""
    data = {}
    forms = [response.context["adminform"].form]
    for inline in response.context["inline_admin_formsets"]:
        management = inline.formset.management_form
        data |= {f"{management.prefix}-{k}": management[k].value() for k in management.fields}
        forms += inline.formset.forms
    for form in forms:
        for name in form.fields:
            value = form[name].value()
            if value not in (None, False):
                data[form.add_prefix(name)] = value
    return data


def test_bot_form_writes_only_what_the_operator_changed(admin_client, alice) -> None:
    bot = install_builtin("splendor-duel", "random", bot_name="adm-d")
    other = install_builtin("splendor-duel", "random", bot_name="adm-e")
    page = admin_client.get(url(Bot, "change", bot.pk))
    choices = page.context["adminform"].form.fields["active_version"].queryset
    assert list(choices) == [bot.active_version]  # not other bots' versions
    assert 'name="last_played_at' not in page.content.decode()
    # the owner's switch is shown, not edited: staff use *enabled*
    assert 'name="withdrawn' not in page.content.decode()
    # Meanwhile a worker records a match of this bot...
    played = timezone.now()
    Bot.objects.filter(pk=bot.pk).update(last_played_at=played, consecutive_faults=2)
    # ...and the operator saves the page opened before, with a new description.
    data = change_form_data(page) | {"description": "tuned by hand"}
    response = admin_client.post(url(Bot, "change", bot.pk), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    bot.refresh_from_db()
    assert bot.description == "tuned by hand"
    assert (bot.last_played_at, bot.consecutive_faults) == (played, 2)
    assert other.active_version != bot.active_version
    # renaming to another bot's name, in any capitals or a look-alike of it
    # (rn for m), is a form error naming that bot, not a 500
    for name in ("adm-e", "ADM-E", "adrn-e", "ADRN_E"):
        renamed = admin_client.post(url(Bot, "change", bot.pk), data | {"name": name})
        assert renamed.status_code == 200, name
        assert "bot named &#x27;adm-e&#x27; exists already" in renamed.content.decode(), name
    assert Bot.objects.get(pk=bot.pk).name == "adm-d"
    assert admin_client.get(url(Bot, "add")).status_code == 403
    # unticking *enabled* cancels its queued ladder matches, as the action does
    queued = create_match("splendor-duel", [other.active_version, bot.active_version])
    data.pop("enabled")
    response = admin_client.post(url(Bot, "change", bot.pk), data, follow=True)
    assert "1 of its queued ladder, challenge and tournament matches cancelled" in " ".join(
        str(m) for m in response.context["messages"]
    )
    assert not Bot.objects.get(pk=bot.pk).enabled
    assert Match.objects.get(pk=queued.pk).status == Match.Status.CANCELLED


def test_a_kept_look_alike_can_be_edited_and_renamed_out_of_it(admin_client, alice, bob) -> None:
    """A bot kept by migration 0011 although it looks like an older one: staff
    can still edit it without renaming it, and renaming it to a free name
    puts it under the database's constraint again."""
    create_bot(alice, "splendor-duel", "adm-f")
    kept = Bot.objects.create(owner=bob, game="splendor-duel", name="adrn-f", kept_look_alike=True)
    page = admin_client.get(url(Bot, "change", kept.pk))
    data = change_form_data(page)
    response = admin_client.post(url(Bot, "change", kept.pk), data | {"description": "seen"})
    assert response.status_code == 302, response.content.decode()[:2000]
    kept.refresh_from_db()
    assert (kept.name, kept.description, kept.kept_look_alike) == ("adrn-f", "seen", True)
    look_alike = admin_client.post(url(Bot, "change", kept.pk), data | {"name": "ADRN-F"})
    assert "bot named &#x27;adm-f&#x27; exists already" in look_alike.content.decode()
    response = admin_client.post(url(Bot, "change", kept.pk), data | {"name": "bobs-f"})
    assert response.status_code == 302, response.content.decode()[:2000]
    kept.refresh_from_db()
    assert (kept.name, kept.kept_look_alike) == ("bobs-f", False)


def test_a_rename_that_loses_the_race_to_an_upload_is_a_form_error(
    admin_client, alice, bob, monkeypatch
) -> None:
    """The new name passed the form's check, then an upload stored a
    look-alike before the rename was written: the database refuses it, and
    the operator gets the form back with the name's error and what they
    typed, not a 500; nothing of the save is stored."""
    bot = create_bot(alice, "splendor-duel", "adm-g")
    page = admin_client.get(url(Bot, "change", bot.pk))
    data = change_form_data(page) | {"name": "adm-h", "description": "renamed by staff"}
    looks = []

    def stored_in_between(game, name, exclude_pk=None, owner=None):
        looks.append(name)
        if len(looks) == 1:  # the upload commits right after the rename's own look
            Bot.objects.create(owner=bob, game=game, name="ADRN_H")
            return ""
        return real_name_taken(game, name, exclude_pk, owner)

    real_name_taken = bot_service.name_taken
    monkeypatch.setattr(bot_service, "name_taken", stored_in_between)
    response = admin_client.post(url(Bot, "change", bot.pk), data)
    assert response.status_code == 200
    form = response.context["adminform"].form
    assert form.errors["name"] == [
        "a splendor-duel bot named 'ADRN_H' exists already; pick another name"
    ]
    assert (form["name"].value(), form["description"].value()) == ("adm-h", "renamed by staff")
    assert looks == ["adm-h", "adm-h"]  # the save's look, then the message's
    bot.refresh_from_db()
    assert (bot.name, bot.description) == ("adm-g", "")
    # the upload ran in the admin's transaction here, so it went with the rollback
    assert list(Bot.objects.values_list("name", flat=True)) == ["adm-g"]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_rename_racing_an_upload_in_another_transaction(admin_client, alice, bob, monkeypatch):
    """The same race with the upload in a transaction of its own, committed
    between the rename's look and its write: PostgreSQL's constraint refuses
    the rename, whose form names the upload's bot; the upload stays."""
    import threading

    from django.db import connection

    bot = create_bot(alice, "splendor-duel", "adm-i")
    data = change_form_data(admin_client.get(url(Bot, "change", bot.pk)))
    uploaded, looks = [], []

    def upload() -> None:
        try:
            uploaded.append(create_bot(bob, "splendor-duel", "ADRN-J"))
        finally:
            connection.close()

    def upload_in_between(game, name, exclude_pk=None, owner=None):
        seen = real_name_taken(game, name, exclude_pk, owner)
        looks.append(name)
        if looks == ["adm-j"]:  # the rename's look: the upload commits right after it
            other = threading.Thread(target=upload)
            other.start()
            other.join()
        return seen

    real_name_taken = bot_service.name_taken
    monkeypatch.setattr(bot_service, "name_taken", upload_in_between)
    response = admin_client.post(url(Bot, "change", bot.pk), data | {"name": "adm-j"})
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["name"] == [
        "a splendor-duel bot named 'ADRN-J' exists already; pick another name"
    ]
    assert sorted(Bot.objects.values_list("name", flat=True)) == ["ADRN-J", "adm-i"]
    assert [b.pk for b in uploaded] == [Bot.objects.get(name="ADRN-J").pk]
    assert looks == ["adm-j", "ADRN-J", "adm-j"]  # the rename's, the upload's, the message's


def test_rerun_and_cancel_matches(admin_client, finished_match, monkeypatch) -> None:
    sent = []
    monkeypatch.setattr(admin_matches, "enqueue", lambda mid, kind: sent.append(mid))
    lineup = [s.version for s in finished_match.seats.order_by("seat")]
    errored = create_match("splendor-duel", lineup)
    Match.objects.filter(pk=errored.pk).update(
        status=Match.Status.ERRORED,
        attempts=3,
        error="system fault: engine gone",
        finished_at=timezone.now(),
    )
    queued = create_match("splendor-duel", lineup)
    before = set(Match.objects.values_list("pk", flat=True))

    message = act(admin_client, Match, "rerun_matches", [finished_match, errored])
    assert "1 errored matches queued again, 1 finished matches copied" in message
    errored.refresh_from_db()
    assert (errored.status, errored.attempts, errored.error) == (Match.Status.QUEUED, 0, "")
    assert errored.finished_at is None
    assert sent == [errored.pk]
    (copy,) = Match.objects.exclude(pk__in=before)
    assert copy.status == Match.Status.QUEUED and not copy.rated
    assert copy.seed == finished_match.seed and copy.validates == finished_match.validates
    assert [s.version for s in copy.seats.order_by("seat")] == lineup

    assert "1 queued matches cancelled" in act(
        admin_client, Match, "cancel_queued", [queued, finished_match]
    )
    queued.refresh_from_db()
    finished_match.refresh_from_db()
    assert queued.status == Match.Status.CANCELLED
    assert finished_match.status == Match.Status.FINISHED  # only queued ones


def test_cancelling_a_validation_rejects_its_version_without_blame(
    admin_client, alice, media_dir, django_capture_on_commit_callbacks
) -> None:
    bot = create_bot(alice, "splendor-duel", "waiting")
    version = add_version(bot, "bot.py", b"print('hi')\n")
    matches = list(version.validation_matches.order_by("pk"))
    # replay files an earlier attempt left while the database was away
    storage = Match._meta.get_field("replay").storage
    for match in matches:
        storage.save(replay_name(match.pk), ContentFile(b"from a failed attempt"))
    assert len(list((media_dir / "replays").rglob("*.json.gz"))) == len(matches) == 2
    with django_capture_on_commit_callbacks(execute=True):
        message = act(admin_client, Match, "cancel_queued", matches[:1])
    assert "1 queued matches cancelled. 1 versions waiting for them were rejected." in message
    version.refresh_from_db()
    assert version.status == BotVersion.Status.REJECTED
    assert f"validation match {matches[0].pk} was cancelled by an administrator" in (
        version.reject_reason
    )
    assert {(m.status, m.reason) for m in version.validation_matches.all()} == {
        (Match.Status.CANCELLED, "cancelled by an administrator"),
        (Match.Status.CANCELLED, "not played: waiting v1 was rejected already"),
    }
    # neither cancelled match keeps a replay (the second one was cancelled by the rejection)
    assert list((media_dir / "replays").rglob("*.json.gz")) == []


def test_revoke_tokens_and_read_only_rows(admin_client, alice, finished_match) -> None:
    create_token(alice, "ci")
    token = ApiToken.objects.get()
    assert "1 tokens revoked" in act(admin_client, ApiToken, "revoke_tokens", [token])
    token.refresh_from_db()
    assert token.revoked_at is not None
    # rows the platform writes cannot be changed or deleted by hand
    step = LiveStep.objects.get()
    response = admin_client.post(url(LiveStep, "delete", step.pk), {"post": "yes"})
    assert response.status_code == 403
    assert LiveStep.objects.filter(pk=step.pk).exists()


def test_seed_demo_fills_both_games_and_is_safe_to_repeat() -> None:
    from django.core.management import call_command

    from arena import all_games
    from ladder.models import BotVersion

    call_command("seed_demo", stdout=io.StringIO())
    games = {g.id for g in all_games()}
    playable = Bot.objects.filter(active_version__status=BotVersion.Status.READY)
    for game in games:
        names = set(playable.filter(game=game).values_list("name", flat=True))
        assert {"ada-random", "blaise-greedy", "dora-greedy", "emmy-random"} <= names, game
        assert len(names) >= 5  # and the built-in validation opponent
    assert playable.filter(game="splendor-duel", name="carl-search").exists()
    counts = (Bot.objects.count(), BotVersion.objects.count())
    call_command("seed_demo", stdout=io.StringIO())
    assert (Bot.objects.count(), BotVersion.objects.count()) == counts


def test_example_bot_zips_do_not_depend_on_file_times(tmp_path) -> None:
    from ladder.bots import zip_directory

    (tmp_path / "lib").mkdir()
    (tmp_path / "main.py").write_bytes(b"print('hi')\n")
    (tmp_path / "lib" / "x.py").write_bytes(b"X = 1\n")
    before = zip_directory(tmp_path)
    for path in (tmp_path / "main.py", tmp_path / "lib" / "x.py"):
        os.utime(path, (1_000_000_000, 1_000_000_000))  # a fresh checkout, a touch
    assert zip_directory(tmp_path) == before
    (tmp_path / "main.py").write_bytes(b"print('ho')\n")
    assert zip_directory(tmp_path) != before
