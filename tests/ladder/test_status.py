"""The status page tells whether each part of the platform works."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils.html import escape

from ladder.models import WorkerHeartbeat


@pytest.mark.django_db
def test_status_page_lists_every_part(client: Client) -> None:
    """The page answers 503 while a part is down, like its JSON: a monitor
    reading the page for people used to get 200 during an outage."""
    for beat in (False, True):
        if beat:
            WorkerHeartbeat.beat("worker@test", "process")
        data = client.get("/status/?format=json")
        response = client.get("/status/")
        # without a worker the platform is down; with one it depends on the
        # machine (is the bot image built?), and the page agrees with its JSON
        status = 200 if data.json()["ok"] else 503
        assert beat or status == 503
        assert data.status_code == response.status_code == status, data.json()
        text = response.content.decode()
        for part in ("Database", "Task broker", "Docker engine", "Sandbox", "Workers"):
            assert part in text


@pytest.mark.django_db
def test_workers_row_follows_heartbeats(client: Client) -> None:
    data = client.get("/status/?format=json").json()
    workers = next(c for c in data["checks"] if c["name"] == "Workers")
    assert workers["ok"] is False
    assert data["ok"] is False

    WorkerHeartbeat.beat("worker@test", "process")
    data = client.get("/status/?format=json").json()
    workers = next(c for c in data["checks"] if c["name"] == "Workers")
    assert workers["ok"] is True
    assert workers["detail"] == "1 alive"
    database = next(c for c in data["checks"] if c["name"] == "Database")
    assert database["ok"] is True


@pytest.mark.django_db
def test_where_the_database_is_shown_to_staff_only(client: Client, settings) -> None:
    where = settings.DATABASES["default"].get("HOST") or str(settings.DATABASES["default"]["NAME"])
    for ask in ("/status/", "/status/?format=json"):
        page = client.get(ask).content.decode()
        assert where not in page and escape(where) not in page
    staff = get_user_model().objects.create_user("op", "op@example.org", "pw", is_staff=True)
    client.force_login(staff)
    assert escape(where) in client.get("/status/").content.decode()
    data = client.get("/status/?format=json").json()
    database = next(c for c in data["checks"] if c["name"] == "Database")
    assert database["staff_detail"] == f"at {where}"


@pytest.mark.django_db
def test_hosts_pids_and_raw_errors_are_shown_to_staff_only(
    client: Client, settings, monkeypatch
) -> None:
    """The page is public: anyone reads the state of each part, but the
    workers' and the beat's host names, the beat's pid and the raw text of a
    failing sandbox (paths, sockets) are for staff, in the page and its JSON."""
    from ladder.models import SeenBeat

    settings.SANDBOX_BACKEND = "process"  # fails, naming the path in its error text
    monkeypatch.setenv("SANDBOX_PROCESS_PYTHON", "/opt/path-secret/python")
    WorkerHeartbeat.beat("w7@node-secret", "docker")
    WorkerHeartbeat.objects.update(self_test_ok=False, self_test_detail="cannot start /opt/py")
    WorkerHeartbeat.beat("w8@node-secret", "docker")
    SeenBeat.saw("beat-secret pid 4242 started 2026-12-02 09:00:00 UTC")
    internal = ("node-secret", "beat-secret", "4242", "/opt/py", "/opt/path-secret")
    User = get_user_model()
    ordinary = User.objects.create_user("ann", "ann@example.org", "pw")
    staff = User.objects.create_user("op", "op@example.org", "pw", is_staff=True)
    for who in (None, ordinary, staff):
        client.logout()
        if who is not None:
            client.force_login(who)
        data = client.get("/status/?format=json").json()
        page = client.get("/status/").content.decode()
        checks = {c["name"]: c for c in data["checks"]}
        # the health summary is the same for everyone
        assert checks["Workers"]["detail"] == "2 alive, 1 refusing matches (self-test failing)"
        assert checks["Beat"]["detail"] == "one running"
        assert checks["Sandbox"]["ok"] is False
        assert checks["Sandbox"]["detail"].endswith("cannot run bots here; signed-in staff see why")
        for text in internal:
            shown = text in page or escape(text) in page
            assert shown == (who is staff), (who, text)
            assert (text in str(data)) == (who is staff), (who, text)
    assert checks["Beat"]["staff_detail"] == "beat-secret pid 4242 started 2026-12-02 09:00:00 UTC"
    assert (
        "w7@node-secret (docker, SELF-TEST FAILING: cannot start /opt/py)"
        in (checks["Workers"]["staff_detail"])
    )


@pytest.mark.django_db
def test_process_sandbox_is_flagged_as_unsafe(client: Client, settings) -> None:
    settings.SANDBOX_BACKEND = "process"
    data = client.get("/status/?format=json").json()
    sandbox = next(c for c in data["checks"] if c["name"] == "Sandbox")
    assert sandbox["warning"] is True
    assert "NOT SAFE" in sandbox["detail"]


@pytest.mark.django_db
def test_home_lists_both_games(client: Client) -> None:
    text = client.get("/").content.decode()
    assert "Splendor Duel" in text
    assert "Edel, Stein" in text


@pytest.mark.django_db
def test_new_code_on_an_old_schema_is_not_healthy(client: Client, monkeypatch) -> None:
    """A reload without `migrate` ran new code on the old schema: every page
    failed while /healthz said 200 (QA operator). A migration this code has
    and the database lacks now fails /healthz and /status/."""
    from django.db.migrations.recorder import MigrationRecorder

    from ladder import health

    monkeypatch.setattr(health, "_schema_current", False)
    assert client.get("/healthz").json()["schema"] == {"ok": True, "pending_migrations": 0}
    latest = MigrationRecorder.Migration.objects.filter(app="ladder").order_by("-name").first()
    latest.delete()  # as if this migration had not run (rolled back with the test)
    monkeypatch.setattr(health, "_schema_current", False)

    health_answer = client.get("/healthz")
    assert health_answer.status_code == 503
    assert health_answer.json()["schema"] == {"ok": False, "pending_migrations": 1}
    status = client.get("/status/?format=json")
    assert status.status_code == 503
    schema = next(c for c in status.json()["checks"] if c["name"] == "Database schema")
    assert schema["ok"] is False
    assert schema["detail"] == "1 migration(s) not applied: run `manage.py migrate`"
    assert "Database schema" in client.get("/status/").content.decode()
