"""The ladder's data. Models carry their own behaviour.

Names follow one vocabulary: user (a person), bot (a named entry for one game),
bot version (an upload, immutable), seat, match, outcome, result, fault.
"""

from __future__ import annotations

import secrets
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, models, transaction
from django.db.models import F, Func, Q, Value
from django.db.models.functions import Lower, Replace
from django.utils import timezone


class WorkerHeartbeat(models.Model):
    """The last sign of life of one Celery worker, written by the worker itself."""

    hostname = models.CharField(max_length=200, unique=True)
    sandbox_backend = models.CharField(max_length=20, blank=True)
    sandbox_problem = models.TextField(blank=True)
    #: the worker's start-up self-test (an echo bot through its sandbox)
    self_test_ok = models.BooleanField(null=True, blank=True)
    self_test_detail = models.TextField(blank=True)
    started_at = models.DateTimeField(default=timezone.now)
    last_seen = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["hostname"]

    def __str__(self) -> str:
        return self.hostname

    @classmethod
    def beat(cls, hostname: str, sandbox_backend: str, sandbox_problem: str = "") -> None:
        now = timezone.now()
        obj, created = cls.objects.get_or_create(
            hostname=hostname,
            defaults={"sandbox_backend": sandbox_backend, "sandbox_problem": sandbox_problem},
        )
        if not created:
            cls.objects.filter(pk=obj.pk).update(
                last_seen=now, sandbox_backend=sandbox_backend, sandbox_problem=sandbox_problem
            )

    @classmethod
    def alive(cls) -> models.QuerySet[WorkerHeartbeat]:
        cutoff = timezone.now() - timedelta(seconds=settings.WORKER_STALE_SECONDS)
        return cls.objects.filter(last_seen__gte=cutoff)

    @property
    def is_alive(self) -> bool:
        return self.last_seen >= timezone.now() - timedelta(seconds=settings.WORKER_STALE_SECONDS)


class SeenBeat(models.Model):
    """A Celery beat, as its scheduled chores arrive at the workers (each
    carries its beat's identity, ladder.beats). Two beats whose sightings
    overlap are running together: /status/ says so."""

    #: host, pid and start time of the beat process
    identity = models.CharField(max_length=200, unique=True)
    first_seen = models.DateTimeField(default=timezone.now)
    last_seen = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["first_seen"]

    def __str__(self) -> str:
        return self.identity

    @classmethod
    def saw(cls, identity: str) -> None:
        now = timezone.now()
        if not cls.objects.filter(identity=identity).update(last_seen=now):
            cls.objects.get_or_create(identity=identity, defaults={"first_seen": now})

    @classmethod
    def running_together(cls, within_s: float, margin_s: float) -> tuple[str, str] | None:
        """Two beats seen in the last `within_s` seconds, one of them still
        ticking `margin_s` seconds after the other began (the margin covers a
        stopped beat's last chores, taken after its successor's first); None
        when there are not two. A beat restarted is no pair: the old one
        falls silent before the new one starts."""
        recent = list(
            cls.objects.filter(last_seen__gte=timezone.now() - timedelta(seconds=within_s))
        )
        for earlier, later in zip(recent, recent[1:], strict=False):
            if earlier.last_seen > later.first_seen + timedelta(seconds=margin_s):
                return earlier.identity, later.identity
        return None


class ChoreRun(models.Model):
    """The last run of one of the beat's chores and the beat that sent it:
    a tick of another beat within the chore's interval does nothing."""

    #: the task's name (ladder.tasks.fill_queue)
    chore = models.CharField(max_length=100, primary_key=True)
    beat = models.CharField(max_length=200, blank=True)
    last_run_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.chore} by {self.beat or '?'}"

    @classmethod
    def take(cls, chore: str, beat: str, interval_s: float) -> str:
        """Claim this tick of `chore` for `beat` with a conditional update: it
        is the beat's own if that beat ran the chore last, or if nobody ran
        it for a whole interval (so a beat restarted after a crash, which has
        a new identity, takes over after one interval). "" when taken, else
        the beat that holds the chore."""
        now = timezone.now()
        cls.objects.get_or_create(chore=chore)
        free = Q(beat=beat) | Q(last_run_at__isnull=True)
        free |= Q(last_run_at__lte=now - timedelta(seconds=interval_s))
        if cls.objects.filter(Q(chore=chore) & free).update(beat=beat, last_run_at=now):
            return ""
        return cls.objects.filter(chore=chore).values_list("beat", flat=True).first() or "?"


def new_instance_id() -> str:
    return secrets.token_hex(6)


class LadderSettings(models.Model):
    """Operator switches that live in the database (one row)."""

    paused = models.BooleanField(
        default=False, help_text="While paused, the scheduler adds no ladder matches."
    )
    #: random, made once per database: every worker of this platform labels
    #: its bot containers with it, and clean-up only touches those labels.
    instance = models.CharField(
        max_length=16,
        default=new_instance_id,
        editable=False,
        help_text="Labels this platform's bot containers (gemarena.instance) on a "
        "Docker engine that other platforms may share.",
    )
    #: {game id: {option: value}}: only options that differ from the game's
    #: defaults, as `ladder.game_options.clean_ladder_options` left them
    game_options = models.JSONField(
        default=dict,
        blank=True,
        help_text="The rules ladder matches (and validation matches of new uploads) are "
        'played with, as JSON {game id: {option: value}}, e.g. {"edel-stein-reich": '
        '{"untaken_event": "keep"}}. `arena games --options` lists every option; '
        "components only as inline JSON. Applies to new matches only: see "
        "docs/operations.md before changing it on a running ladder.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = verbose_name_plural = "ladder settings"

    def __str__(self) -> str:
        return "Ladder paused" if self.paused else "Ladder running"

    @classmethod
    def get(cls) -> LadderSettings:
        try:
            return cls.objects.get(pk=1)
        except cls.DoesNotExist:
            pass
        try:
            with transaction.atomic():
                obj, _ = cls.objects.get_or_create(pk=1)
                return obj
        except IntegrityError:  # another process created it at the same moment
            return cls.objects.get(pk=1)

    @classmethod
    def instance_id(cls) -> str:
        """This platform's id for sandbox labels (see `instance`)."""
        return cls.get().instance

    def options_for(self, game: str) -> dict[str, Any]:
        """The options the ladder's new matches of `game` are created with."""
        return dict((self.game_options or {}).get(game, {}))


#: characters of the bot-name alphabet (ASCII letters, digits, - and _) that
#: pass for others on a leaderboard, replaced in this order after lower-casing.
#: Many-to-one look-alikes are written out (m → rn, not rn → m), so that
#: `rnm` and `mrn` get one key whichever pair a reader sees first. Letters that
#: only look alike in some fonts (5/s, 2/z, 8/b) are left apart.
BOT_NAME_LOOK_ALIKES: tuple[tuple[str, str], ...] = (
    ("_", "-"),
    ("0", "o"),
    ("1", "l"),
    ("i", "l"),  # capital I is l's twin; lower-casing made it i
    ("m", "rn"),
    ("w", "vv"),
    ("d", "cl"),
)


#: then separators: a run of them reads as one (`dora--greedy`, `dora_-greedy`)
#: and one at the end is hardly seen (`dora-greedy-`). Each pass of '--' → '-'
#: halves a run; six fold the longest a 40-character name holds (39).
SEPARATOR_PASSES = 6


def bot_name_key_expression(field: str = "name") -> Any:
    """The database's `ladder.bots.name_key` of `field`."""
    key: Any = Lower(field)
    for look_alike, replacement in BOT_NAME_LOOK_ALIKES:
        key = Replace(key, Value(look_alike), Value(replacement))
    for _ in range(SEPARATOR_PASSES):
        key = Replace(key, Value("--"), Value("-"))
    # RTRIM(text, characters): PostgreSQL and SQLite both have it
    return Func(key, Value("-"), function="RTRIM", output_field=models.CharField())


#: what two bot names of one game must not share, as the database computes
#: it: `Sd_Greedy`, `d0ra-greedy` or `dora-greedy-` would pass for `sd-greedy`
#: or `dora-greedy` on a leaderboard (`ladder.bots.name_key` is the same in Python)
BOT_NAME_KEY = bot_name_key_expression()
#: the name of the database's constraint on `BOT_NAME_KEY` (`Bot.Meta`)
LOOK_ALIKE_CONSTRAINT = "bot_look_alike_per_game"


class Bot(models.Model):
    """A named entry of one user for one game; its uploads are BotVersions."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="bots")
    game = models.CharField(max_length=40)
    name = models.SlugField(max_length=40)
    description = models.CharField(max_length=300, blank=True)
    active_version = models.ForeignKey(
        "BotVersion", models.SET_NULL, null=True, blank=True, related_name="+"
    )
    #: staff's switch (the admin); the owner cannot turn it back on
    enabled = models.BooleanField(default=True)
    #: the owner's switch: off the ladder (no new ladder matches) until they
    #: put it back; ratings and history stay, challenges still play it
    withdrawn = models.BooleanField(
        default=False,
        help_text="Its owner took it off the ladder (their switch, on the bot's page); "
        "staff use Enabled.",
    )
    #: why the ladder stopped scheduling this bot (faults in a row, operator)
    paused_reason = models.CharField(max_length=300, blank=True)
    consecutive_faults = models.PositiveIntegerField(default=0)
    #: built-in bots (validation opponents, demo bots) belong to the system user
    is_builtin = models.BooleanField(default=False)
    #: the name looked like an older bot's when migration 0011 made look-alikes
    #: unique; kept as it was (it is in links and owners' scripts), and outside
    #: the database's look-alike constraint until it is renamed, or until the
    #: set's unmarked bot goes and the oldest kept one takes its place
    #: (`ladder.bots.anchor_look_alikes`)
    kept_look_alike = models.BooleanField(
        default=False,
        help_text="Its name looks like an older bot's of the game (0 for o, 1 for l, ...) "
        "and was kept when such names became unique; renaming it ends that.",
    )
    created_at = models.DateTimeField(default=timezone.now)
    last_played_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "name"], name="bot_name_per_game"),
            # look-alikes too, so that two uploads at the same moment cannot both
            # pass `ladder.bots.name_taken`; the names kept by migration 0011
            # stay outside (one bot of each set is inside, so no new name can
            # join the set; `ladder.bots.anchor_look_alikes` keeps it so, and
            # `anchor_every_look_alike_set` after a data migration's deletes)
            models.UniqueConstraint(
                "game",
                BOT_NAME_KEY,
                condition=Q(kept_look_alike=False),
                name=LOOK_ALIKE_CONSTRAINT,
            ),
        ]
        indexes = [
            models.Index(fields=["game", "enabled"]),
            # the queue page lists playing bots by when they last played
            models.Index(fields=["-last_played_at"], name="bot_last_played"),
        ]
        ordering = ["game", "name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.game})"

    @property
    def plays(self) -> bool:
        """Whether the ladder schedules it: the same test as `PLAYS_ON_LADDER`."""
        return (
            self.enabled
            and not self.withdrawn
            and not self.paused_reason
            and self.active_version_id is not None
        )


#: the bots the ladder schedules (`Bot.plays` in the database)
PLAYS_ON_LADDER = Q(enabled=True, withdrawn=False, paused_reason="", active_version__isnull=False)


def version_upload_path(instance: BotVersion, filename: str) -> str:
    return f"bots/{instance.bot_id}/v{instance.number}/{Path(filename).name}"


class RefusedUpload(models.Model):
    """An upload its checks refused. Nothing of the file is kept, only that it
    happened: refusals count towards the hourly upload limit, since checking
    a file costs the server work (ladder.bots.check_upload_rate)."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, models.CASCADE, related_name="refused_uploads"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["owner", "created_at"])]

    def __str__(self) -> str:
        return f"refused upload by {self.owner_id} at {self.created_at:%Y-%m-%d %H:%M}"


class AuthAttempt(models.Model):
    """A failed sign-in, a sign-up or a link mail asked for (a password reset or
    a new address to confirm), kept only while a limit of
    `ladder.throttle` may count it (the hourly `prune_records` deletes older
    ones). Deleting a row lifts what it counted: the admin's way to let
    somebody in again at once."""

    class Kind(models.TextChoices):
        LOGIN_FAILURE = "login-failure", "failed sign-in"
        SIGNUP = "signup", "sign-up"
        #: the value predates confirmation links, which count here too
        PASSWORD_RESET = "password-reset", "link mail asked (password reset or new address)"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    #: the client's address as `ladder.throttle.client_address` found it
    address = models.CharField(max_length=45)
    #: the user name tried, in lower case ("" for a sign-up; the email
    #: address mailed, in lower case, for a link mail)
    account = models.CharField(max_length=254, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["kind", "address", "at"]),
            models.Index(fields=["kind", "account", "address", "at"]),
        ]

    def __str__(self) -> str:
        who = f"{self.account} from " if self.account else "from "
        return f"{self.get_kind_display()} {who}{self.address} at {self.at:%Y-%m-%d %H:%M}"


class MailSettings(models.Model):
    """What a user asked to be mailed about (`ladder.notify`); no row = nothing."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, models.CASCADE, primary_key=True, related_name="mail_settings"
    )
    #: a bot of theirs paused after faults, an upload of theirs rejected
    bot_news = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"mail settings of {self.user_id}"


class BotVersion(models.Model):
    """One upload. Immutable once stored: a change of code is a new version."""

    class Status(models.TextChoices):
        PENDING = "pending", "validating"
        READY = "ready", "ready"
        REJECTED = "rejected", "rejected"

    bot = models.ForeignKey(Bot, models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    upload = models.FileField(upload_to=version_upload_path)
    original_name = models.CharField(max_length=200)
    sha256 = models.CharField(max_length=64)
    size_bytes = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    reject_reason = models.TextField(blank=True)
    stderr_tail = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bot", "number"], name="version_number_per_bot")
        ]
        ordering = ["bot", "-number"]

    def __str__(self) -> str:
        return f"{self.bot.name} v{self.number}"

    @property
    def code_dir(self) -> Path:
        """Where the unpacked code (main.py and friends) lives."""
        return Path(settings.MEDIA_ROOT) / "code" / str(self.pk)


class Tournament(models.Model):
    """A round robin between chosen bots, started by an operator
    (`ladder.tournaments`). Its matches are unrated: the ladder's ratings
    never see them."""

    class Status(models.TextChoices):
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    name = models.CharField(max_length=80)
    game = models.CharField(max_length=40)
    #: seats per match
    players = models.PositiveSmallIntegerField()
    #: games per table of the schedule (`arena tournament --games`)
    games = models.PositiveIntegerField()
    #: the first game's seed; the schedule's seeds follow it
    seed = models.BigIntegerField()
    options = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    #: why it was cancelled
    reason = models.CharField(max_length=200, blank=True)
    #: the highest id of its matches sent to the workers: the beat sends the
    #: next ones as they are played (`ladder.tournaments.send_matches`), so
    #: that a long tournament takes turns with the ladder in its queue
    sent_through = models.BigIntegerField(default=0)
    #: the standings' figures once no match is left to play, stored once
    #: (`ladder.tournament_table`); null while it is being played
    final_table = models.JSONField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.game}, {self.status})"


class TournamentEntry(models.Model):
    """One bot of a tournament: the version it plays, pinned when the
    tournament was created, and the name it plays as (kept if the bot is
    renamed later)."""

    tournament = models.ForeignKey(Tournament, models.CASCADE, related_name="entries")
    #: the bot's index in `arena.schedule`
    position = models.PositiveSmallIntegerField()
    version = models.ForeignKey(BotVersion, models.PROTECT, related_name="tournament_entries")
    #: `ladder.matches.seat_label(version)` at creation
    label = models.CharField(max_length=80)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "position"], name="tournament_entry_position"
            ),
            models.UniqueConstraint(
                fields=["tournament", "version"], name="tournament_entry_version"
            ),
        ]
        ordering = ["tournament", "position"]

    def __str__(self) -> str:
        return f"{self.label} in tournament {self.tournament_id}"


class Match(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        FINISHED = "finished"
        ERRORED = "errored"
        CANCELLED = "cancelled"

    class Kind(models.TextChoices):
        LADDER = "ladder"
        VALIDATION = "validation"
        CHALLENGE = "challenge"
        TOURNAMENT = "tournament"

    game = models.CharField(max_length=40)
    seat_count = models.PositiveSmallIntegerField()
    seed = models.BigIntegerField()
    options = models.JSONField(default=dict, blank=True)
    rules_version = models.CharField(max_length=40)
    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.LADDER)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    rated = models.BooleanField(default=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    #: mirrored pairs / rotated tables share a group id
    group = models.UUIDField(null=True, blank=True)
    #: set at each claim; only the holder of the current claim may record the result
    claim = models.UUIDField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    replay = models.FileField(upload_to="replays/%Y/%m/", blank=True)
    reason = models.CharField(max_length=200, blank=True)  # the outcome's reason
    error = models.TextField(blank=True)  # the last system fault
    steps = models.PositiveIntegerField(default=0)
    #: the seat that made the first move, set with the result (the seed may
    #: draw it); None while unplayed or when several seats choose at once.
    #: The leaderboard's fit credits its first-move term to this seat.
    first_mover = models.PositiveSmallIntegerField(null=True, blank=True)
    #: position in the order results were applied to ratings (rated matches only)
    rating_seq = models.PositiveBigIntegerField(null=True, blank=True, unique=True)
    #: the version a validation match tests
    validates = models.ForeignKey(
        BotVersion, models.CASCADE, null=True, blank=True, related_name="validation_matches"
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, models.SET_NULL, null=True, blank=True, related_name="+"
    )
    tournament = models.ForeignKey(
        Tournament, models.CASCADE, null=True, blank=True, related_name="matches"
    )

    class Meta:
        verbose_name_plural = "matches"
        indexes = [
            models.Index(fields=["status", "created_at"]),
            models.Index(fields=["game", "-finished_at"]),
            # the queue page counts the matches finished in the last hour and day
            models.Index(fields=["finished_at"], name="match_finished_at"),
            # GET /api/matches lists newest first: without it every request
            # sorted the whole history (a sequential scan, linear in matches)
            models.Index(fields=["-created_at", "-id"], name="match_newest_first"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(rating_seq__isnull=True) | Q(rated=True, status="finished"),
                name="only_finished_rated_matches_have_a_rating_seq",
            )
        ]
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"match {self.pk} ({self.game}, {self.status})"

    @property
    def is_done(self) -> bool:
        return self.status in {self.Status.FINISHED, self.Status.ERRORED, self.Status.CANCELLED}

    def claim_for(self, worker: str) -> uuid.UUID | None:
        """Take this queued match for one run; None if someone else has it."""
        token = uuid.uuid4()
        now = timezone.now()
        taken = Match.objects.filter(pk=self.pk, status=Match.Status.QUEUED).update(
            status=Match.Status.RUNNING,
            claim=token,
            worker=worker,
            attempts=F("attempts") + 1,
            started_at=now,
            heartbeat_at=now,
        )
        return token if taken else None


class MatchSeat(models.Model):
    match = models.ForeignKey(Match, models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    version = models.ForeignKey(BotVersion, models.PROTECT, related_name="seats")
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True)
    fault = models.CharField(max_length=20, blank=True)
    fault_detail = models.TextField(blank=True)
    think_ms = models.PositiveIntegerField(null=True, blank=True)
    stderr_tail = models.TextField(blank=True)
    elo_before = models.FloatField(null=True, blank=True)
    elo_change = models.FloatField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "seat"], name="one_row_per_seat")]
        indexes = [models.Index(fields=["version", "match"])]
        ordering = ["match", "seat"]

    def __str__(self) -> str:
        return f"{self.match_id}/{self.seat}"


class Rating(models.Model):
    """The current ratings of one bot (bots are per game, so this is per game too)."""

    bot = models.OneToOneField(Bot, models.CASCADE, related_name="rating")
    elo = models.FloatField(default=1500.0)  # incremental Elo, moves after each match
    elo_games = models.PositiveIntegerField(default=0)
    # the batch maximum-likelihood fit that orders the leaderboard
    fitted = models.FloatField(null=True, blank=True)
    fitted_low = models.FloatField(null=True, blank=True)
    fitted_high = models.FloatField(null=True, blank=True)
    provisional = models.BooleanField(default=True)
    fitted_rank = models.PositiveIntegerField(null=True, blank=True)
    wins = models.PositiveIntegerField(default=0)
    fitted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["fitted_rank"])]

    def __str__(self) -> str:
        return f"{self.bot}: {self.elo:.0f}"


class RatingHistory(models.Model):
    """Append-only: one row per bot per rated match, in the order they were applied."""

    bot = models.ForeignKey(Bot, models.CASCADE, related_name="rating_history")
    match = models.ForeignKey(Match, models.CASCADE, related_name="rating_changes")
    version = models.ForeignKey(BotVersion, models.CASCADE, related_name="+")
    seq = models.PositiveBigIntegerField()  # the match's rating_seq
    elo_before = models.FloatField()
    elo_after = models.FloatField()
    fitted = models.FloatField(null=True, blank=True)  # leaderboard rating at the time
    fitted_low = models.FloatField(null=True, blank=True)
    fitted_high = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "rating history"
        constraints = [
            models.UniqueConstraint(fields=["bot", "match"], name="rated_once_per_bot_and_match")
        ]
        indexes = [models.Index(fields=["bot", "seq"])]
        ordering = ["seq"]

    def __str__(self) -> str:
        return f"{self.bot} {self.elo_before:.0f}→{self.elo_after:.0f}"


def lock_user(user) -> bool:
    """Serialise one user's limited requests (bots, uploads, tokens, challenges)
    inside the caller's transaction, so a per-user limit is counted and used in
    one step: a row lock in PostgreSQL; SQLite's IMMEDIATE transactions
    serialise every writer anyway. False when the user is gone (deleted
    while the request was on its way, perhaps after waiting for this lock):
    the caller stores nothing of theirs then.

    The order of row locks, everywhere: a user's row first (this; several
    users in pk order, `ladder.moderation.lock_owners`), then the look-alike
    turn (`ladder.bots.take_look_alike_turn`), then bots' rows, then what
    hangs from them. An upload locks its owner, then its bot; a deletion
    locks the owners before its delete removes bots and then the owner's
    row (tests/ladder/test_owner_deletion_races.py)."""
    return get_user_model().objects.select_for_update().filter(pk=user.pk).exists()


class Counter(models.Model):
    """Named monotonic counters; `next` must run inside a transaction."""

    name = models.CharField(max_length=40, primary_key=True)
    value = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.name}={self.value}"

    @classmethod
    def lock(cls, name: str) -> Counter:
        """The counter's row, locked until the transaction ends."""
        cls.objects.get_or_create(name=name)
        return cls.objects.select_for_update().get(name=name)

    @classmethod
    def next(cls, name: str, count: int = 1) -> int:
        """Reserve `count` numbers; returns the first (the counter starts at 1)."""
        row = cls.lock(name)
        first = row.value + 1
        row.value += count
        row.save(update_fields=["value"])
        return first


class GameFit(models.Model):
    """The last leaderboard fit of one game (the per-bot numbers live on Rating)."""

    game = models.CharField(max_length=40, primary_key=True)
    matches = models.PositiveIntegerField(default=0)
    first_seat_advantage = models.FloatField(null=True, blank=True)
    first_seat_advantage_half_width = models.FloatField(null=True, blank=True)
    fitted_at = models.DateTimeField(null=True, blank=True)
    #: how long the fit took (reading the results included): the beat's refits
    #: are spaced by it (ladder.tasks.REFIT_SPACING)
    seconds = models.FloatField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.game} fit over {self.matches} matches"


class LiveStep(models.Model):
    """Steps of a running match, for people watching it live.

    The worker writes them in small batches while it plays; they are deleted
    when the result is recorded (the replay file then holds every step).
    """

    match = models.ForeignKey(Match, models.CASCADE, related_name="live_steps")
    step = models.PositiveIntegerField()
    data = models.JSONField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "step"], name="live_step_once")]
        ordering = ["match", "step"]

    def __str__(self) -> str:
        return f"{self.match_id}#{self.step}"


class ApiToken(models.Model):
    """A personal API token. Only its SHA-256 is stored; the token is shown once."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=60)
    prefix = models.CharField(max_length=12)  # shown in lists so people can tell tokens apart
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.user} / {self.name} ({self.prefix}…)"

    @property
    def active(self) -> bool:
        return self.revoked_at is None
