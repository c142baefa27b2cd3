"""Gem Arena settings. Every value comes from an environment variable.

With nothing set this is the embedded default: SQLite under var/ (WAL mode)
and a Celery broker on the local filesystem, so one machine runs the whole
platform with no services installed. DATABASE_URL and REDIS_URL switch to
PostgreSQL and Redis; GEMARENA_PRODUCTION=1 turns on the deployment checks.
See docs/operations.md for the full list.
"""

from __future__ import annotations

from pathlib import Path

from kombu import Exchange, Queue

from config.env import (
    SettingError,
    database_from_url,
    env_bool,
    env_choice,
    env_int,
    env_list,
    env_match,
    env_str,
    install_secret_key,
    make_dir,
    report_setting_errors,
)
from ladder.logging import logging_config
from sandbox.base import MIN_MEMORY_MIB

report_setting_errors()

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = make_dir("GEMARENA_VAR_DIR", Path(env_str("GEMARENA_VAR_DIR") or BASE_DIR / "var"))

PRODUCTION = env_bool("GEMARENA_PRODUCTION", False)
#: Django's debug pages show code and settings: only for developers who ask
DEBUG = env_bool("DEBUG", False)
if PRODUCTION and DEBUG:
    raise SettingError("DEBUG=1 is not allowed with GEMARENA_PRODUCTION=1")

SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if PRODUCTION:
        raise SettingError("SECRET_KEY must be set when GEMARENA_PRODUCTION=1")
    SECRET_KEY = install_secret_key(VAR_DIR / "secret-key")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [] if PRODUCTION else ["127.0.0.1", "localhost", "[::1]"])
if PRODUCTION and not ALLOWED_HOSTS:
    raise SettingError("ALLOWED_HOSTS must list the site's host names in production")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "ninja",  # serves its bundled Swagger UI for /api/docs (no CDN needed)
    "ladder",
]

MIDDLEWARE = [
    "ladder.middleware.HeadWithoutBody",
    "django.middleware.security.SecurityMiddleware",
    "ladder.middleware.ContentSecurityPolicy",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "ladder.middleware.MethodNotAllowedPage",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "ladder.context.site",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------
DATABASE_URL = env_str("DATABASE_URL")
if DATABASE_URL:
    # health checks: a connection broken by a database restart is replaced
    # at the start of the next task or request instead of failing it
    DATABASES = {
        "default": database_from_url(
            "DATABASE_URL", DATABASE_URL, conn_max_age=60, conn_health_checks=True
        )
    }
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": VAR_DIR / "gemarena.sqlite3",
            "OPTIONS": {
                # WAL lets the web server read while a worker writes; IMMEDIATE
                # transactions take the write lock up front, so two writers wait
                # for each other (timeout) instead of failing with "database is
                # locked" when a reader upgrades to a writer.
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
                "transaction_mode": "IMMEDIATE",
                "timeout": 30,
            },
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Celery ----------------------------------------------------------------
REDIS_URL = env_str("REDIS_URL")
CELERY_BROKER_DIR = VAR_DIR / "broker"
if REDIS_URL and not REDIS_URL.startswith(("redis://", "rediss://", "redis+socket://")):
    raise SettingError(
        f"REDIS_URL={REDIS_URL!r}: expected a redis://, rediss:// or redis+socket:// URL"
    )
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    # "sorted": a worker looks in its queues in sorted order of their names
    # (see LADDER_QUEUE_SUFFIX); kombu's default takes turns
    CELERY_BROKER_TRANSPORT_OPTIONS: dict = {
        "visibility_timeout": 3600,
        "queue_order_strategy": "sorted",
    }
else:
    # kombu's filesystem transport: a broker that needs no server.
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_BROKER_DIR / "queue"),
        "data_folder_out": str(CELERY_BROKER_DIR / "queue"),
        "control_folder": str(CELERY_BROKER_DIR / "control"),
        "store_processed": False,
    }
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
#: A pool process whose peak resident memory passed this is replaced by a
#: fresh one after the match it played: a safety net, never reached by a
#: healthy worker (130-140 MB once its engine caches are warm, docs/scale.md).
#: No max tasks per child: a new process would only warm the caches again.
WORKER_MAX_MEMORY_MIB = env_int("WORKER_MAX_MEMORY_MIB", 512, minimum=1, maximum=65536)
CELERY_WORKER_MAX_MEMORY_PER_CHILD = WORKER_MAX_MEMORY_MIB * 1024  # Celery counts KiB
#: the queue matches are sent to and workers take them from; two platforms may
#: share one Redis with different queues (tests use a queue of their own). The
#: filesystem broker puts the name in file names, so it is kept to safe characters.
CELERY_TASK_DEFAULT_QUEUE = env_match(
    "GEMARENA_QUEUE",
    "gemarena",
    r"[A-Za-z0-9._-]{1,100}",
    "a queue name is 1-100 letters, digits, '.', '-' and '_'",
)
#: The ladder's own matches (a full queue of them, refilled by the beat) and
#: challenges go to "<queue>.ladder"; an upload's validation, which its
#: author waits for, and the beat's chores that need a sandbox, to the queue
#: itself. Both brokers look in the queues in sorted order of their names, so
#: a worker always takes those before the next ladder match
#: (ladder.matches.queue_for).
LADDER_QUEUE_SUFFIX = ".ladder"
#: The beat's database-only chores (filling the queue, refitting the
#: leaderboards) go to "<queue>.housekeeping": the housekeeper
#: (`python -m ladder.housekeeper`) takes only those, so they never wait for
#: a worker slot that a long match holds; match workers take them too, after
#: the platform's queue and before the next ladder match.
HOUSEKEEPING_QUEUE_SUFFIX = ".housekeeping"
CELERY_TASK_QUEUES = tuple(
    Queue(name, Exchange(name), routing_key=name)
    for name in (
        CELERY_TASK_DEFAULT_QUEUE,
        CELERY_TASK_DEFAULT_QUEUE + HOUSEKEEPING_QUEUE_SUFFIX,
        CELERY_TASK_DEFAULT_QUEUE + LADDER_QUEUE_SUFFIX,
    )
)
#: sends the beat's database-only chores to the housekeeping queue, named at
#: send time like every queue (ladder.matches.route_task)
CELERY_TASK_ROUTES = ("ladder.matches.route_task",)
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_BEAT_SCHEDULE = {
    "worker-heartbeat": {"task": "ladder.tasks.heartbeat", "schedule": 20.0},
    "fill-queue": {"task": "ladder.tasks.fill_queue", "schedule": 10.0},
    "refit-ratings": {"task": "ladder.tasks.refit_ratings", "schedule": 30.0},
    "reap-stale-matches": {"task": "ladder.tasks.reap_stale_matches", "schedule": 60.0},
    "prune-records": {"task": "ladder.tasks.prune_records", "schedule": 3600.0},
}
#: longer than a day is a typo; far longer overflows timedelta/Event.wait at run time
DAY_SECONDS = 86_400
WORKER_STALE_SECONDS = env_int("WORKER_STALE_SECONDS", 90, minimum=10, maximum=DAY_SECONDS)
#: each worker writes its own heartbeat (and re-runs its self-test) this often
WORKER_HEARTBEAT_SECONDS = env_int("WORKER_HEARTBEAT_SECONDS", 20, minimum=1, maximum=DAY_SECONDS)

# --- Sandbox -----------------------------------------------------------------
SANDBOX_BACKEND = env_choice("SANDBOX_BACKEND", ("auto", "docker", "process"), "auto")
ALLOW_PROCESS_SANDBOX = env_bool("ALLOW_PROCESS_SANDBOX", False)
if PRODUCTION and SANDBOX_BACKEND == "process" and not ALLOW_PROCESS_SANDBOX:
    raise SettingError(
        "SANDBOX_BACKEND=process runs untrusted bots without isolation; it is refused "
        "with GEMARENA_PRODUCTION=1 unless ALLOW_PROCESS_SANDBOX=1"
    )
if PRODUCTION and SANDBOX_BACKEND == "auto" and not ALLOW_PROCESS_SANDBOX:
    # "auto" falls back to the process sandbox when Docker or the image is
    # missing; in production that must stop the worker (its self-test fails
    # and it takes no match), never quietly run bots without isolation
    SANDBOX_BACKEND = "docker"

# --- Uploads and ladder limits ----------------------------------------------
BOT_UPLOAD_MAX_BYTES = env_int("BOT_UPLOAD_MAX_BYTES", 1 << 20, minimum=1024)
#: compiling an upload's main.py runs in a child process (ladder/compile_check.py)
#: with these limits; a file over either is refused, and at most
#: UPLOAD_CHECK_CONCURRENCY checks run at once in each web process
UPLOAD_CHECK_SECONDS = env_int("UPLOAD_CHECK_SECONDS", 5, minimum=1, maximum=300)
UPLOAD_CHECK_MEMORY_MIB = env_int("UPLOAD_CHECK_MEMORY_MIB", 1024, minimum=64, maximum=65536)
UPLOAD_CHECK_CONCURRENCY = env_int("UPLOAD_CHECK_CONCURRENCY", 2, minimum=1, maximum=64)
# the replay viewer's derived frames on disk (ladder/views_replay.py), least recently used go first
REPLAY_FRAMES_CACHE_MB = env_int("REPLAY_FRAMES_CACHE_MB", 1024, minimum=1)
BOT_ZIP_MAX_UNPACKED_BYTES = env_int("BOT_ZIP_MAX_UNPACKED_BYTES", 8 << 20, minimum=1024)
BOT_ZIP_MAX_FILES = env_int("BOT_ZIP_MAX_FILES", 200, minimum=1)
BOT_ZIP_MAX_RATIO = env_int("BOT_ZIP_MAX_RATIO", 100, minimum=2)
MAX_BOTS_PER_USER = env_int("MAX_BOTS_PER_USER", 10, minimum=1)
MAX_UPLOADS_PER_HOUR = env_int("MAX_UPLOADS_PER_HOUR", 20, minimum=1)
MAX_OPEN_CHALLENGES = env_int("MAX_OPEN_CHALLENGES", 5, minimum=1)
#: sign-in and sign-up limits per client address (ladder/throttle.py)
LOGIN_FAILURE_WINDOW_MINUTES = env_int("LOGIN_FAILURE_WINDOW_MINUTES", 15, minimum=1, maximum=1440)
LOGIN_FAILURES_PER_ACCOUNT = env_int("LOGIN_FAILURES_PER_ACCOUNT", 10, minimum=1)
LOGIN_FAILURES_PER_ADDRESS = env_int("LOGIN_FAILURES_PER_ADDRESS", 50, minimum=1)
SIGNUPS_PER_ADDRESS_PER_HOUR = env_int("SIGNUPS_PER_ADDRESS_PER_HOUR", 10, minimum=1)
#: where the client's address comes from: the TCP peer, or the last address of
#: X-Forwarded-For, which the TLS proxy that production runs behind appends
CLIENT_ADDRESS_FROM = env_choice(
    "CLIENT_ADDRESS_FROM", ("peer", "x-forwarded-for"), "x-forwarded-for" if PRODUCTION else "peer"
)
#: the most matches one server tournament may have (ladder.tournaments)
TOURNAMENT_MAX_MATCHES = env_int("TOURNAMENT_MAX_MATCHES", 5000, minimum=1)
VALIDATION_MATCHES = env_int("VALIDATION_MATCHES", 2, minimum=1, maximum=20)
FAULTS_BEFORE_PAUSE = env_int("FAULTS_BEFORE_PAUSE", 5, minimum=1)
MATCH_MAX_ATTEMPTS = env_int("MATCH_MAX_ATTEMPTS", 3, minimum=1)
#: a running match whose worker has not reported for this long goes back to the queue
MATCH_STALE_SECONDS = env_int("MATCH_STALE_SECONDS", 300, minimum=30, maximum=DAY_SECONDS)
#: queued ladder matches kept per live worker process
QUEUE_DEPTH_PER_WORKER = env_int("QUEUE_DEPTH_PER_WORKER", 4, minimum=1)
#: a bot time limit above an hour is a typo; far above, it overflows the
#: sandbox's timeouts (poll() takes at most 2**31 - 1 ms) at match time
MAX_LIMIT_MS = 3_600_000
MOVE_MS = env_int("MOVE_MS", 1000, minimum=10, maximum=MAX_LIMIT_MS)
BANK_MS = env_int("BANK_MS", 10000, minimum=0, maximum=MAX_LIMIT_MS)
STARTUP_MS = env_int("STARTUP_MS", 10000, minimum=100, maximum=MAX_LIMIT_MS)
#: at least what a bot starts in (sandbox/base.py); at most 64 GiB per bot:
#: Docker refuses a container whose limit overflows its int64 bytes
BOT_MEMORY_MIB = env_int("BOT_MEMORY_MIB", 256, minimum=MIN_MEMORY_MIB, maximum=65536)

# --- Static files, auth, i18n ------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env_str("GEMARENA_STATIC_DIR") or VAR_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
#: Outside production whitenoise serves static/ as it is (no collectstatic
#: step for `make run`); its default follows DEBUG, which is off. It still
#: warns once per process about a STATIC_ROOT that does not exist.
WHITENOISE_USE_FINDERS = not PRODUCTION
if not PRODUCTION:
    make_dir("GEMARENA_STATIC_DIR", STATIC_ROOT)
MEDIA_ROOT = Path(env_str("GEMARENA_MEDIA_DIR") or VAR_DIR / "media")
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "account"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Email (password resets) ---------------------------------------------------
#: with EMAIL_HOST, mail goes out over SMTP; without it `make run` writes each
#: mail to a file under var/mail/ (to read the link), and production sends
#: none: the reset page then says to ask the operators (docs/operations.md)
EMAIL_HOST = env_str("EMAIL_HOST")
EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1, maximum=65535)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise SettingError(
        "EMAIL_USE_TLS=1 and EMAIL_USE_SSL=1: choose one (STARTTLS on 587 or TLS on 465); "
        "set EMAIL_USE_TLS=0 with EMAIL_USE_SSL=1"
    )
EMAIL_TIMEOUT = 10  # seconds; a reset request waits for the SMTP server at most this long
DEFAULT_FROM_EMAIL = env_str("EMAIL_FROM") or "Gem Arena <noreply@localhost>"
SERVER_EMAIL = DEFAULT_FROM_EMAIL
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
elif not PRODUCTION:
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    EMAIL_FILE_PATH = VAR_DIR / "mail"
#: whether the site can send mail (reset links, owners' bot news)
SENDS_EMAIL = bool(EMAIL_HOST) or not PRODUCTION
#: the site's address in mails sent without a request (a worker's bot news)
SITE_URL = env_match(
    "SITE_URL",
    (CSRF_TRUSTED_ORIGINS[0] if CSRF_TRUSTED_ORIGINS else "")
    or (f"https://{ALLOWED_HOSTS[0]}" if PRODUCTION and ALLOWED_HOSTS else "")
    or f"http://127.0.0.1:{env_str('WEB_PORT') or '8000'}",
    r"https?://[^/\s]+/?",
    "an http:// or https:// address without a path, e.g. https://arena.example.org",
).rstrip("/")
#: how long a reset link works (Django's default is three days)
PASSWORD_RESET_TIMEOUT = 24 * 3600
PASSWORD_RESETS_PER_ADDRESS_PER_HOUR = env_int("PASSWORD_RESETS_PER_ADDRESS_PER_HOUR", 5, minimum=1)

# --- Production hardening (manage.py check --deploy) ---------------------------
if PRODUCTION:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # load balancers probe over plain HTTP
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    SECURE_CONTENT_TYPE_NOSNIFF = True
    X_FRAME_OPTIONS = "DENY"

# Plain lines or one JSON object per line (LOG_FORMAT=json); every record
# carries match_id and worker (ladder/logging.py). Celery workers keep this
# configuration instead of installing their own root handler.
LOG_FORMAT = env_choice("LOG_FORMAT", ("plain", "json"), "plain")
LOG_LEVEL = env_choice("LOG_LEVEL", ("debug", "info", "warning", "error", "critical"), "info")
LOGGING = logging_config(LOG_FORMAT, LOG_LEVEL.upper())
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
