"""Settings come from the environment; bad values stop start-up with a clear message."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STRONG_KEY = "k3y-" + "Zq8#vLm2$Xw9!Rt5" * 4


def start(command: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    """Run a command of the project with the embedded default plus `env`."""
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    clean.update(env)
    return subprocess.run(command, cwd=ROOT, env=clean, capture_output=True, text=True, timeout=120)


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return start([sys.executable, "manage.py", *args], **env)


def shell(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run Python `code` in `manage.py shell` with the embedded default plus `env`."""
    return manage("shell", "--no-imports", "-c", code, **env)


def venv_command(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def test_embedded_default_is_sqlite_and_local_broker(tmp_path: Path) -> None:
    code = (
        "from django.conf import settings as s;"
        "print(s.DATABASES['default']['ENGINE']);"
        "print(s.CELERY_BROKER_URL);"
        "print(s.DATABASES['default']['OPTIONS']['init_command'])"
    )
    out = shell(code, GEMARENA_VAR_DIR=str(tmp_path))
    assert out.returncode == 0, out.stderr
    engine, broker, init = out.stdout.splitlines()[:3]
    assert engine == "django.db.backends.sqlite3"
    assert broker == "filesystem://"
    assert "journal_mode=WAL" in init


def test_embedded_default_has_debug_off_and_a_key_of_its_own(tmp_path: Path) -> None:
    """No technical error pages unless a developer asks (DEBUG=1), and a
    SECRET_KEY made for this install, kept across restarts."""
    code = "from django.conf import settings as s;print(s.DEBUG);print(s.SECRET_KEY)"
    first = shell(code, GEMARENA_VAR_DIR=str(tmp_path))
    assert first.returncode == 0, first.stderr
    debug, key = first.stdout.splitlines()[:2]
    assert debug == "False"
    stored = tmp_path / "secret-key"
    assert stored.read_text().strip() == key and len(key) >= 50
    assert stored.stat().st_mode & 0o777 == 0o600
    again = shell(code, GEMARENA_VAR_DIR=str(tmp_path), DEBUG="1")
    assert again.stdout.splitlines()[:2] == ["True", key]
    other = shell(code, GEMARENA_VAR_DIR=str(tmp_path / "b"))
    assert other.stdout.splitlines()[1] != key
    given = shell(code, GEMARENA_VAR_DIR=str(tmp_path), SECRET_KEY=STRONG_KEY)
    assert given.stdout.splitlines()[1] == STRONG_KEY


def test_the_web_app_starts_without_warnings_on_a_fresh_var_dir(tmp_path: Path) -> None:
    """whitenoise warned 'No directory at: .../staticfiles/' in every web
    process of the embedded default (found by a QA operator)."""
    code = (
        "import os, django;os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings');"
        "django.setup();import config.wsgi;print('started')"
    )
    out = start(
        [sys.executable, "-W", "error::UserWarning", "-c", code],
        GEMARENA_VAR_DIR=str(tmp_path / "v"),
    )
    assert out.returncode == 0 and out.stdout.strip() == "started", out.stderr[-2000:]


def test_a_broken_key_file_stops_start_up_with_what_to_do(tmp_path: Path) -> None:
    (tmp_path / "secret-key").write_text("short\n")
    out = manage("check", GEMARENA_VAR_DIR=str(tmp_path))
    assert out.returncode != 0
    assert "holds no usable SECRET_KEY" in out.stderr and "delete it" in out.stderr
    assert (tmp_path / "secret-key").read_text() == "short\n"  # nothing overwritten


def test_service_urls_switch_to_postgres_and_redis(tmp_path: Path) -> None:
    code = (
        "from django.conf import settings as s;"
        "print(s.DATABASES['default']['ENGINE']);print(s.CELERY_BROKER_URL)"
    )
    out = shell(
        code,
        GEMARENA_VAR_DIR=str(tmp_path),
        DATABASE_URL="postgres://u:p@127.0.0.1:5432/x",
        REDIS_URL="redis://127.0.0.1:6379/3",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[:2] == [
        "django.db.backends.postgresql",
        "redis://127.0.0.1:6379/3",
    ]


def test_bad_setting_names_the_variable(tmp_path: Path) -> None:
    out = manage("check", GEMARENA_VAR_DIR=str(tmp_path), SANDBOX_BACKEND="chroot")
    assert out.returncode != 0
    assert "SANDBOX_BACKEND='chroot'" in out.stderr
    assert "auto, docker, process" in out.stderr


def test_production_passes_check_deploy(tmp_path: Path) -> None:
    out = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        GEMARENA_VAR_DIR=str(tmp_path),
        GEMARENA_PRODUCTION="1",
        SECRET_KEY=STRONG_KEY,
        ALLOWED_HOSTS="arena.example.org",
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no issues" in out.stdout


def test_production_needs_a_secret_key(tmp_path: Path) -> None:
    out = manage(
        "check", GEMARENA_VAR_DIR=str(tmp_path), GEMARENA_PRODUCTION="1", ALLOWED_HOSTS="a.org"
    )
    assert out.returncode != 0
    assert "SECRET_KEY must be set" in out.stderr


def test_production_refuses_process_sandbox_unless_allowed(tmp_path: Path) -> None:
    env = {
        "GEMARENA_VAR_DIR": str(tmp_path),
        "GEMARENA_PRODUCTION": "1",
        "SECRET_KEY": STRONG_KEY,
        "ALLOWED_HOSTS": "arena.example.org",
        "SANDBOX_BACKEND": "process",
    }
    refused = manage("check", **env)
    assert refused.returncode != 0
    assert "ALLOW_PROCESS_SANDBOX=1" in refused.stderr
    allowed = manage("check", **env, ALLOW_PROCESS_SANDBOX="1")
    assert allowed.returncode == 0, allowed.stderr


def test_production_auto_never_falls_back_to_the_process_sandbox(tmp_path: Path) -> None:
    """A production worker without the bot image fails its self-test (and so
    takes no match) instead of running bots on the process sandbox: found by
    a QA operator, who got 'process: echo bot answered' in production."""
    code = (
        "from django.conf import settings as s;print(s.SANDBOX_BACKEND);"
        "from arena.sandboxes import sandbox_self_test;from ladder.selftest import work_dir;"
        "print(sandbox_self_test(s.SANDBOX_BACKEND, work_dir())[0])"
    )
    env = {
        "GEMARENA_VAR_DIR": str(tmp_path),
        "GEMARENA_PRODUCTION": "1",
        "SECRET_KEY": STRONG_KEY,
        "ALLOWED_HOSTS": "arena.example.org",
        "SANDBOX_IMAGE": "gemarena-test-missing:none",
    }
    out = shell(code, **env)
    assert out.stdout.splitlines()[-2:] == ["docker", "False"], out.stdout + out.stderr
    allowed = shell(code, **env, ALLOW_PROCESS_SANDBOX="1")
    assert allowed.stdout.splitlines()[-2] == "auto", allowed.stdout + allowed.stderr
    assert "using the process backend" in allowed.stderr  # allowed: it does fall back


def test_bad_setting_is_one_clear_line_not_a_traceback(tmp_path: Path) -> None:
    out = manage("check", GEMARENA_VAR_DIR=str(tmp_path), MOVE_MS="fast")
    assert out.returncode != 0
    assert "MOVE_MS='fast': expected a whole number" in out.stderr
    assert "Traceback" not in out.stderr


def test_bad_log_level_names_the_variable(tmp_path: Path) -> None:
    out = manage("check", GEMARENA_VAR_DIR=str(tmp_path), LOG_LEVEL="loud")
    assert out.returncode != 0
    assert "LOG_LEVEL='loud'" in out.stderr
    assert "Traceback" not in out.stderr


def test_unusable_var_dir_names_the_variable(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    out = manage("check", GEMARENA_VAR_DIR=str(blocker / "var"))
    assert out.returncode != 0
    assert "GEMARENA_VAR_DIR=" in out.stderr
    assert "Traceback" not in out.stderr


def test_celery_reports_a_bad_setting_without_a_traceback(tmp_path: Path) -> None:
    out = start(
        [venv_command("celery"), "-A", "config", "report"],
        GEMARENA_VAR_DIR=str(tmp_path),
        BANK_MS="-5",
    )
    assert out.returncode != 0
    assert "BANK_MS=-5: must be at least 0" in out.stderr
    assert "Traceback" not in out.stderr


def test_gunicorn_reports_a_bad_setting_without_a_traceback(tmp_path: Path) -> None:
    out = start(
        [venv_command("gunicorn"), "config.wsgi", "--bind", "127.0.0.1:0", "--workers", "1"],
        GEMARENA_VAR_DIR=str(tmp_path),
        LOG_FORMAT="xml",
    )
    assert out.returncode != 0
    assert "LOG_FORMAT='xml'" in out.stderr
    assert "Traceback" not in out.stderr


def test_redis_url_must_be_a_redis_url(tmp_path: Path) -> None:
    out = manage("check", GEMARENA_VAR_DIR=str(tmp_path), REDIS_URL="127.0.0.1:6379")
    assert out.returncode != 0
    assert "REDIS_URL='127.0.0.1:6379'" in out.stderr


def test_mail_goes_to_files_locally_nowhere_in_production_and_over_smtp_when_set(
    tmp_path: Path,
) -> None:
    code = "from django.conf import settings as s; print(s.EMAIL_BACKEND, s.SENDS_EMAIL)"
    local = shell(code, GEMARENA_VAR_DIR=str(tmp_path))
    assert local.stdout.split()[-2:] == ["django.core.mail.backends.filebased.EmailBackend", "True"]
    production = {
        "GEMARENA_VAR_DIR": str(tmp_path),
        "GEMARENA_PRODUCTION": "1",
        "SECRET_KEY": STRONG_KEY,
        "ALLOWED_HOSTS": "a.org",
        "SANDBOX_BACKEND": "process",
        "ALLOW_PROCESS_SANDBOX": "1",
    }
    silent = shell(code, **production)
    assert silent.returncode == 0, silent.stderr
    assert silent.stdout.split()[-1] == "False"
    smtp = shell(code, EMAIL_HOST="smtp.example.org", **production)
    assert smtp.stdout.split()[-2:] == ["django.core.mail.backends.smtp.EmailBackend", "True"]
    both = manage("check", GEMARENA_VAR_DIR=str(tmp_path), EMAIL_USE_SSL="1")
    assert both.returncode != 0 and "EMAIL_USE_TLS=1 and EMAIL_USE_SSL=1: choose one" in both.stderr
