"""Health endpoint, worker self-test and structured logs, in one process.

- /healthz answers 200 with the database and broker up, 503 when either is not;
- the self-test passes on a working sandbox and fails (with a reason) on a
  broken one; a worker whose self-test failed refuses matches without
  claiming them (no attempt counted) and sends them back to the queue;
- a system fault followed by a failing self-test gives the attempt back;
- log records carry match_id and worker; LOG_FORMAT=json gives JSON lines.
"""

from __future__ import annotations

import json
import logging
import os

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from arena import SystemFault, sandbox_self_test
from ladder import selftest, tasks
from ladder.bots import install_builtin
from ladder.logging import ContextFilter, JsonFormatter, match_context, set_worker_name
from ladder.matches import create_match
from ladder.models import Match, WorkerHeartbeat

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def process_sandbox(settings):
    settings.SANDBOX_BACKEND = "process"
    settings.MOVE_MS = 2000
    settings.STARTUP_MS = 15000


class FakeTask:
    """What run_match reads from Celery's task: the worker's name."""

    class request:  # noqa: N801 - mirrors celery's task.request
        hostname = "w-test@host"

    def retry(self, **kwargs):
        raise AssertionError(f"unexpected retry {kwargs}")


def test_healthz_is_200_with_database_and_broker(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    data = response.json()
    assert data["ok"] is True
    assert data["database"]["ok"] and data["broker"]["ok"]
    assert response["Cache-Control"] == "no-store"


def test_healthz_is_503_when_the_broker_is_gone(client: Client, settings, tmp_path) -> None:
    if settings.CELERY_BROKER_URL.startswith("redis"):
        settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    else:
        settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"data_folder_in": str(tmp_path / "nope")}
    response = client.get("/healthz")
    assert response.status_code == 503
    data = response.json()
    assert data["ok"] is False
    assert data["database"]["ok"] is True
    assert data["broker"]["ok"] is False and data["broker"]["error"]


def test_self_test_passes_on_the_process_sandbox(media_dir) -> None:
    ok, detail = sandbox_self_test("process", media_dir)
    assert ok, detail
    assert "echo bot answered" in detail
    assert list(media_dir.iterdir()) == []  # the echo bot is removed again


def test_self_test_names_the_bot_library_it_imported(media_dir) -> None:
    from arena.sdk_lib import bot_lib_id

    ok, detail = sandbox_self_test("process", media_dir)
    assert ok, detail
    assert detail.endswith(f"bot library {bot_lib_id()}")


@pytest.mark.parametrize(
    "lib, said",
    [
        ("other", "the bot library in the sandbox is from other sources (0123456789abcdef; these"),
        ("no id", "the bot library in the sandbox has no BOT_LIB_ID, so its version is unknown"),
        ("no sdk", "bots cannot import the SDK (gemarena_sdk) in this sandbox (import failed"),
    ],
)
def test_self_test_fails_on_a_bot_library_that_is_not_this_workers(
    media_dir, monkeypatch, lib, said
) -> None:
    """Bots import the SDK and the engines from the bot library; a sandbox
    without it, or with another version's, would blame the bots for the
    platform's mistake, so the worker refuses matches instead."""
    from arena import sdk_lib

    folder = media_dir / "lib"  # readable by the sandbox's user, unlike tmp_path
    folder.mkdir()
    folder.chmod(0o755)
    if lib != "no sdk":
        (folder / "gemarena_sdk.py").write_text("")
    if lib == "other":
        (folder / "BOT_LIB_ID").write_text("0123456789abcdef\n")
    for path in folder.iterdir():
        path.chmod(0o644)
    monkeypatch.setattr(sdk_lib, "bot_lib", lambda: folder)
    ok, detail = sandbox_self_test("process", media_dir)
    assert not ok
    assert said in detail, detail
    assert "make image" in detail


@pytest.mark.docker
def test_self_test_fails_on_a_bot_image_built_without_the_library(media_dir, monkeypatch) -> None:
    """`python -m sandbox.image ensure` without --extra-lib builds an image
    in which every bot that imports the SDK crashes at start."""
    import secrets
    import subprocess
    import sys

    import docker

    from sandbox.image import HOSTCOPY_SCRIPT

    api = docker.APIClient(timeout=60)

    def tags() -> set[str]:
        return {t for i in api.images(name="gemarena-bot") for t in i["RepoTags"] or ()}

    before = tags()  # the build also tags its content hash; only a new one is ours
    image = f"gemarena-bot:test-nolib-{secrets.token_hex(4)}"
    try:
        subprocess.run(
            [sys.executable, str(HOSTCOPY_SCRIPT), "--alias", image],
            check=True,
            capture_output=True,
            timeout=600,
        )
        monkeypatch.setenv("SANDBOX_IMAGE", image)
        ok, detail = sandbox_self_test("docker", media_dir)
        assert not ok
        assert "docker: bots cannot import the SDK (gemarena_sdk)" in detail, detail
    finally:
        for tag in tags() - before:
            try:
                api.remove_image(tag)
            except docker.errors.NotFound:
                pass


def test_self_test_fails_with_a_reason_when_docker_is_unreachable(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    ok, detail = sandbox_self_test("docker", tmp_path)
    assert not ok
    assert "docker" in detail and "unreachable" in detail.lower()


def test_self_test_fails_when_the_bot_cannot_answer(media_dir, monkeypatch) -> None:
    # a "python" that is not one: the echo bot never starts
    monkeypatch.setenv("SANDBOX_PROCESS_PYTHON", "/bin/false")
    ok, detail = sandbox_self_test("process", media_dir)
    assert not ok, detail


def test_run_self_test_records_on_the_heartbeat(process_sandbox) -> None:
    ok, _ = selftest.run_self_test("w-test@host")
    row = WorkerHeartbeat.objects.get(hostname="w-test@host")
    assert ok and row.self_test_ok is True and "echo bot" in row.self_test_detail
    assert selftest.refuses_matches("w-test@host") == ""


def test_failing_worker_refuses_matches_without_counting_an_attempt(
    process_sandbox, monkeypatch
) -> None:
    a = install_builtin("splendor-duel", "random", bot_name="r1")
    b = install_builtin("splendor-duel", "random", bot_name="r1b")
    match = create_match("splendor-duel", [a.active_version, b.active_version])
    WorkerHeartbeat.beat("w-test@host", "docker")
    WorkerHeartbeat.objects.update(self_test_ok=False, self_test_detail="engine gone")
    sent = []
    monkeypatch.setattr(
        tasks, "enqueue", lambda mid, kind, countdown=0: sent.append((mid, countdown))
    )
    monkeypatch.setattr(tasks.time, "sleep", lambda s: None)
    assert tasks._run_match(FakeTask(), match.pk) == "refused"
    match.refresh_from_db()
    assert match.status == Match.Status.QUEUED
    assert match.attempts == 0 and match.claim is None
    assert sent == [(match.pk, tasks.REFUSED_DELAY_S)]
    # once the self-test passes again, the same worker plays it
    selftest.run_self_test("w-test@host")
    assert tasks._run_match(FakeTask(), match.pk) == "finished"
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.attempts == 1


def test_fault_on_a_broken_worker_gives_the_attempt_back(process_sandbox, monkeypatch) -> None:
    a = install_builtin("splendor-duel", "random", bot_name="r2")
    b = install_builtin("splendor-duel", "random", bot_name="r2b")
    match = create_match("splendor-duel", [a.active_version, b.active_version])

    def broken(*args, **kwargs):
        raise SystemFault("sandbox failed to start a bot: engine gone")

    sent = []
    monkeypatch.setattr(tasks, "play_match", broken)
    monkeypatch.setattr(tasks, "enqueue", lambda mid, kind, countdown=0: sent.append(mid))
    monkeypatch.setattr(selftest, "sandbox_self_test", lambda *a, **k: (False, "engine gone"))
    for _ in range(5):  # more than MATCH_MAX_ATTEMPTS: still never errored
        WorkerHeartbeat.objects.update(self_test_ok=True)
        assert tasks._run_match(FakeTask(), match.pk) == "retry (worker fault)"
    match.refresh_from_db()
    assert match.status == Match.Status.QUEUED and match.attempts == 0
    assert "attempt not counted" in match.error
    assert selftest.refuses_matches("w-test@host") == "engine gone"
    # with a healthy self-test the same fault counts, up to errored
    monkeypatch.setattr(selftest, "sandbox_self_test", lambda *a, **k: (True, "fine"))
    WorkerHeartbeat.objects.update(self_test_ok=True)
    outcomes = [tasks._run_match(FakeTask(), match.pk) for _ in range(3)]
    assert outcomes == ["retry", "retry", "errored"]


def test_log_records_carry_match_and_worker() -> None:
    set_worker_name("w9@box")
    record = logging.LogRecord("ladder", logging.INFO, __file__, 1, "hello %s", ("x",), None)
    with match_context(42):
        ContextFilter().filter(record)
    line = json.loads(JsonFormatter().format(record))
    assert line["match_id"] == "42" and line["worker"] == "w9@box"
    assert line["message"] == "hello x" and line["level"] == "INFO"
    outside = logging.LogRecord("ladder", logging.INFO, __file__, 1, "bye", (), None)
    ContextFilter().filter(outside)
    assert json.loads(JsonFormatter().format(outside))["match_id"] is None


def test_pool_processes_log_the_node_name() -> None:
    """celeryd_init comes before the prefork pool forks: the processes that
    play the matches log the node name, not the bare host name."""
    from celery.signals import celeryd_init

    set_worker_name("bare-host")
    celeryd_init.send(sender="w3@box", instance=None, conf=None, options={})
    record = logging.LogRecord("ladder.tasks", logging.INFO, __file__, 1, "x", (), None)
    ContextFilter().filter(record)
    assert record.worker == "w3@box"


def test_runner_threads_log_their_match() -> None:
    from concurrent.futures import ThreadPoolExecutor

    def record_in_thread() -> str:
        record = logging.LogRecord("arena.runner", logging.INFO, __file__, 1, "x", (), None)
        ContextFilter().filter(record)
        return record.match_id

    # the runner names its pools after the match: ask-<match>_N
    with ThreadPoolExecutor(1, thread_name_prefix="ask-31") as pool:
        assert pool.submit(record_in_thread).result() == "31"
    with ThreadPoolExecutor(1, thread_name_prefix="heartbeat") as pool:
        assert pool.submit(record_in_thread).result() == ""


def test_status_trusts_the_workers_when_web_has_no_docker(
    client: Client, settings, monkeypatch, tmp_path
) -> None:
    # the web process of a production deployment has no Docker socket
    settings.SANDBOX_BACKEND = "docker"
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/none.sock")
    checks = {c["name"]: c for c in client.get("/status/?format=json").json()["checks"]}
    assert checks["Sandbox"]["ok"] is False  # no worker vouches for Docker yet
    WorkerHeartbeat.beat("w1@host", "docker")
    WorkerHeartbeat.objects.update(self_test_ok=True, self_test_detail="docker: echo bot answered")
    checks = {c["name"]: c for c in client.get("/status/?format=json").json()["checks"]}
    assert checks["Sandbox"]["ok"] is True
    assert checks["Sandbox"]["detail"] == (
        "docker backend on the workers (1 pass their Docker self-test)"
    )
    assert "w1@host" not in str(checks)  # host names are for staff (tests/ladder/test_status.py)
    assert checks["Docker engine"]["ok"] is True
    # the public page does not show the web process's raw connection error
    assert checks["Docker engine"]["detail"] == (
        "not used by the web process (only workers need it); 1 worker(s) pass their Docker "
        "self-test"
    )
    assert "staff_detail" not in checks["Docker engine"]
    assert checks["Workers"]["detail"] == "1 alive"
    # a worker whose self-test fails is counted, and vouches for nothing
    WorkerHeartbeat.objects.update(self_test_ok=False, self_test_detail="engine gone")
    checks = {c["name"]: c for c in client.get("/status/?format=json").json()["checks"]}
    assert checks["Sandbox"]["ok"] is False
    assert checks["Workers"]["ok"] is False
    assert checks["Workers"]["detail"] == "1 alive, all failing their self-test"
    # staff read each worker's self-test; the bot-library message ends with
    # how to rebuild the image: shown whole
    from arena.sandboxes import REBUILD_HINT, _bot_lib_problem

    staff = get_user_model().objects.create_user("op", "op@example.org", "pw", is_staff=True)
    client.force_login(staff)
    detail = "docker: " + _bot_lib_problem("import failed: ModuleNotFoundError('gemarena_sdk')")
    WorkerHeartbeat.objects.update(self_test_detail=detail)
    checks = {c["name"]: c for c in client.get("/status/?format=json").json()["checks"]}
    assert checks["Workers"]["staff_detail"].startswith("w1@host (docker, SELF-TEST FAILING: ")
    assert checks["Workers"]["staff_detail"].endswith(f"{REBUILD_HINT})")
    assert checks["Sandbox"]["staff_detail"]  # the web process's own Docker error


def with_the_database_away(code: str, var_dir):
    """Run `code` in `manage.py shell` against a PostgreSQL that is not there."""
    from tests.config.test_settings import shell

    # nothing listens on port 1
    return shell(
        code,
        GEMARENA_VAR_DIR=str(var_dir),
        DATABASE_URL="postgres://nobody:secret@127.0.0.1:1/gone",
    )


def test_pages_and_the_api_say_the_database_is_away(tmp_path) -> None:
    """With the database down every page answered the generic "Server
    error" 500 (resilience QA): pages now answer a 503 that says the database
    is away, the API its JSON `unavailable`, both with a Retry-After. Any
    other error is still the 500 page."""
    import json

    code = (
        "from django.test import Client;import json;"
        "c=Client(HTTP_HOST='127.0.0.1', raise_request_exception=False);"
        "c.cookies['sessionid']='a-session-the-database-would-have';"
        "[print(json.dumps([u, r.status_code, r.get('Retry-After'), r.content.decode()])) "
        "for u in ('/', '/games/splendor-duel/', '/bots/1/', '/upload/', "
        "'/api/bots', '/api/me') for r in [c.get(u)]]"
    )
    out = with_the_database_away(code, tmp_path)
    answers = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("[")]
    assert len(answers) == 6, out.stdout + out.stderr
    for url, status, retry, body in answers:
        assert (status, retry) == (503, "30"), (url, status, body[:300])
        if url.startswith("/api/"):
            error = json.loads(body)["error"]
            assert error["code"] == "unavailable", url
            assert error["message"].startswith("the database is not reachable"), url
        else:
            assert "<h1>Database unavailable</h1>" in body, url
            assert 'href="/status/"' in body and "Server error" not in body, url
            assert "127.0.0.1" not in body and "Traceback" not in body, url


def test_other_errors_keep_the_500_page(client, settings) -> None:
    """Only a database outage becomes the 503: a bug is still a 500."""
    from django.db import IntegrityError, OperationalError
    from django.urls import path

    import config.urls
    import ladder.urls

    def broken(request, kind):
        raise {"bug": RuntimeError, "constraint": IntegrityError, "away": OperationalError}[kind](
            "no"
        )

    settings.DEBUG = False
    settings.ROOT_URLCONF = type(
        "urls",
        (),
        {
            "urlpatterns": [path("broken/<str:kind>/", broken), *ladder.urls.urlpatterns],
            "handler500": config.urls.handler500,
        },
    )
    client.raise_request_exception = False
    for kind, status, heading in (
        ("bug", 500, "Server error"),
        ("constraint", 500, "Server error"),
        ("away", 503, "Database unavailable"),
    ):
        response = client.get(f"/broken/{kind}/")
        assert response.status_code == status, kind
        assert f"<h1>{heading}</h1>" in response.content.decode(), kind


@pytest.mark.docker
def test_docker_self_test_removes_stale_self_test_containers(media_dir) -> None:
    """A worker that died mid-self-test leaves a container; the next self-test
    of the same platform removes it once it is older than any self-test can
    last. Another platform's on the same engine is left alone."""
    import secrets
    import time

    import docker

    api = docker.APIClient(timeout=30)
    image = os.environ.get("SANDBOX_IMAGE") or "gemarena-bot:current"
    ours, theirs = f"a{secrets.token_hex(4)}", f"b{secrets.token_hex(4)}"
    made = {}
    try:
        for instance in (ours, theirs):
            labels = {
                "gemarena.sandbox": "1",
                "gemarena.sandbox.created": f"{time.time() - 600:.3f}",
                "gemarena.selftest": "1",
                "gemarena.instance": instance,
            }
            name = f"gemarena-bot-selftest-stale-{instance}"
            made[instance] = api.create_container(image, ["true"], name=name, labels=labels)["Id"]
        ok, detail = sandbox_self_test("docker", media_dir, instance=ours)
        assert ok, detail
        assert not api.containers(all=True, filters={"id": made[ours]})
        assert api.containers(all=True, filters={"id": made[theirs]})
    finally:
        for cid in made.values():
            try:
                api.remove_container(cid, force=True)
            except docker.errors.NotFound:
                pass


def test_status_and_healthz_answer_while_the_database_is_away(tmp_path) -> None:
    """Both pages are most needed exactly then. /status/ used to fail with a
    500 (the workers' check reads the database) and /healthz named host and
    port in public (found by a QA operator): both answer 503, and only
    "not reachable" is said to anyone who is not staff. The page for people
    answered 200 while it said the database was down; a monitor reading it
    saw nothing wrong."""
    import json

    code = (
        "from django.test import Client;import json;c=Client(HTTP_HOST='127.0.0.1');"
        "r=c.get('/status/?format=json');print(r.status_code);print(r.content.decode());"
        "h=c.get('/healthz');print(h.status_code);print(h.content.decode());"
        "p=c.get('/status/');print(p.status_code, 'unknown: the database' in p.content.decode())"
    )
    out = with_the_database_away(code, tmp_path)
    lines = out.stdout.splitlines()
    assert lines[0] == "503", out.stdout + out.stderr
    checks = {c["name"]: c for c in json.loads(lines[1])["checks"]}
    assert checks["Database"]["detail"].endswith("not reachable")
    assert checks["Workers"] == {
        "name": "Workers",
        "ok": False,
        "warning": False,
        "detail": "unknown: the database is not reachable",
    }
    assert lines[2] == "503"
    health = json.loads(lines[3])
    assert health["database"] == {
        "ok": False,
        "ms": health["database"]["ms"],
        "error": "not reachable",
    }
    assert "127.0.0.1" not in lines[3] and "port" not in lines[3]
    assert lines[4] == "503 True"  # the page for people shows the same
