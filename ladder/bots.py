"""Bots and versions: creating them, storing uploads, built-in bots.

Uploads go through `ladder.uploads.check_upload` first; only code that passed
every check is stored. A new version starts `pending` and plays validation
matches (see `ladder.results.decide_validation`).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import math
import re
import shutil
import zipfile
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import Exists, F, OuterRef, QuerySet, Value
from django.db.models.functions import Lower, Replace
from django.utils import timezone

from arena import OptionError, builtin_bot_dir, get_game
from ladder.matches import create_match
from ladder.models import (
    BOT_NAME_KEY,
    BOT_NAME_LOOK_ALIKES,
    LOOK_ALIKE_CONSTRAINT,
    SEPARATOR_PASSES,
    Bot,
    BotVersion,
    Counter,
    LadderSettings,
    Match,
    MatchSeat,
    Rating,
    RefusedUpload,
    lock_user,
    version_upload_path,
)
from ladder.results import activate
from ladder.uploads import CheckedUpload, UploadError, check_not_identical, check_upload

SYSTEM_USERNAME = "gemarena"
#: a bot's name: it appears in URLs and on command lines (`arena upload --bot
#: NAME`), so it starts with a letter or digit (a leading "-" reads as an option)
BOT_NAME_PATTERN = r"^[a-zA-Z0-9][-a-zA-Z0-9_]*$"
BOT_NAME_RULE = "bot names start with a letter or digit, then letters, digits, - and _"


class LimitError(UploadError):
    """A per-user limit (bots, uploads per hour) was reached; `retry_after_s`
    says when it frees, where that is known (the API's Retry-After)."""

    def __init__(self, message: str, retry_after_s: int | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class NameTakenError(UploadError):
    """Another bot of the game has this name, or one that looks like it
    (`name_key`)."""


class Gone(UploadError):
    """What an upload was for was deleted while it was on its way (its bot,
    or its owner's account, by the admin): nothing was stored, and nothing
    counts against a limit."""

    @classmethod
    def bot(cls, bot: Bot) -> Gone:
        return cls(f"{bot.name} was deleted while your upload was on its way")


class StorageFailure(Exception):
    """The server could not write an upload (a full or failing disk): not the
    file's fault, nothing was stored, and trying later may work."""


def name_key(name: str) -> str:
    """What two bot names of one game must not share: `Sd_Greedy` would pass
    for `sd-greedy` on a leaderboard, and `d0ra-greedy`, `Dora_Greedy`,
    `clora-greedy`, `dora--greedy` or `dora-greedy_` for `dora-greedy`
    (`ladder.models.BOT_NAME_LOOK_ALIKES`, then runs of separators as one and
    none at the end; `BOT_NAME_KEY` is the same in the database)."""
    key = name.lower()
    for look_alike, replacement in BOT_NAME_LOOK_ALIKES:
        key = key.replace(look_alike, replacement)
    for _ in range(SEPARATOR_PASSES):  # `dora--greedy`
        key = key.replace("--", "-")
    return key.rstrip("-")  # `dora-greedy-`


def named(bots: QuerySet[Bot], name: str) -> QuerySet[Bot]:
    """The bots of `bots` named `name`, capitals ignored and '_' as '-': how
    the API's `name` filter and `arena upload --bot` find a bot. Not the
    look-alike key: bots kept by migration 0011 share that one with an older
    bot, and `arena upload --bot ada-rand0m` should find that bot only."""
    spelled = Lower(Replace("name", Value("_"), Value("-")))
    return bots.annotate(spelled=spelled).filter(spelled=name.lower().replace("_", "-"))


def look_alikes(bots: QuerySet[Bot], name: str) -> QuerySet[Bot]:
    """The bots of `bots` whose name looks like `name` (the same `name_key`)."""
    return bots.annotate(name_key=BOT_NAME_KEY).filter(name_key=name_key(name))


def name_taken(game: str, name: str, exclude_pk: int | None = None, owner=None) -> str:
    """Why `name` cannot be used for a `game` bot ("" when it can): another bot
    has it or a look-alike of it. It names that bot in the way as it is
    spelled (bot names are public), and tells `owner` when that bot is theirs."""
    others = look_alikes(Bot.objects.filter(game=game), name).exclude(pk=exclude_pk)
    other = others.order_by("pk").first()  # the oldest, when kept look-alikes share the key
    if other is None:
        return ""
    if owner is not None and other.owner_id == owner.pk:
        return f"you already have a {game} bot named {other.name!r}; upload a new version to it instead"
    return f"a {game} bot named {other.name!r} exists already; pick another name"


def look_alike_key(model: type[Bot] = Bot) -> Any:
    """The key of `model`'s look-alike constraint, as the database computes
    it: `BOT_NAME_KEY` for today's Bot; for a migration's historical Bot, the
    key its constraint had at that point of the migrations (0011's did not
    fold separators), which the rows of that moment satisfy."""
    for constraint in model._meta.constraints:
        if constraint.name == LOOK_ALIKE_CONSTRAINT:
            return constraint.expressions[1]  # (game, key)
    raise ValueError(
        f"{model._meta.label} has no {LOOK_ALIKE_CONSTRAINT!r} constraint: "
        "a Bot from before migration 0011 has no look-alike sets to anchor"
    )


def anchor_look_alikes(game: str, name: str, model: type[Bot] = Bot) -> int | None:
    """Call in the transaction where a bot named `name` left its look-alike
    set (deleted, or renamed to another key). The database's constraint holds
    one bot of each set, and only that one's row makes it refuse a new
    look-alike; when it was the one that left and bots kept by migration 0011
    or 0013 remain, the oldest of them takes its place (unmarked), so that two
    uploads at the same moment still cannot both store a look-alike. Returns
    the pk of the bot it unmarked, None when the set still had its holder or
    is gone. `model` is a migration's historical Bot, see
    `anchor_every_look_alike_set`."""
    key = look_alike_key(model)
    # the key of `name` computed by the same expression, so that a historical
    # model's set is the one its constraint sees
    named_key = key.replace_expressions({F("name"): Value(name)})
    same_key = model.objects.filter(game=game).annotate(look_alike=key).filter(look_alike=named_key)
    while not same_key.filter(kept_look_alike=False).exists():
        oldest = same_key.order_by("pk").values_list("pk", flat=True).first()
        if oldest is None:
            return None  # the set is gone
        # 0 rows: that bot was deleted or renamed meanwhile (committed by
        # another transaction, whose row lock this update waited for): a
        # migration's departures take no turn (`take_look_alike_turn`), so
        # they may cross the ladder's; look again
        # (tests/ladder/test_look_alike_races.py makes it happen)
        if model.objects.filter(pk=oldest, kept_look_alike=True).update(kept_look_alike=False):
            return oldest
    return None


def anchor_every_look_alike_set(model: type[Bot] = Bot) -> list[int]:
    """Give every look-alike set whose held bot is gone its next holder (the
    oldest kept bot, `anchor_look_alikes`); returns the pks it unmarked.

    For data migrations: Django sends no post_delete from a migration's
    historical models, so `bot_deleted` does not run there. A migration that
    deletes bots, or renames them with `update()`, calls this afterwards with
    its historical model, in the same migration:

        from ladder.bots import anchor_every_look_alike_set

        def forwards(apps, schema_editor):
            Bot = apps.get_model("ladder", "Bot")
            Bot.objects.filter(...).delete()
            for pk in anchor_every_look_alike_set(Bot):
                print(f"\n  bot {pk}: the oldest of its look-alikes, unmarked")

    It finds the sets by the key of that model's constraint (`look_alike_key`),
    so it stays right for a migration written before a later one changes the
    key. Each set is handed on with `anchor_look_alikes`' retry, as migrations
    run while the old code still serves (docs/operations.md). Doing it twice
    changes nothing."""
    keyed = model.objects.annotate(look_alike=look_alike_key(model))
    holder = keyed.filter(
        game=OuterRef("game"), look_alike=OuterRef("look_alike"), kept_look_alike=False
    )
    orphans = keyed.filter(kept_look_alike=True).exclude(Exists(holder))
    sets = {}  # (game, key) -> the name of one bot of the set
    for game, key, name in orphans.order_by("pk").values_list("game", "look_alike", "name"):
        sets.setdefault((game, key), name)
    unmarked = [anchor_look_alikes(game, name, model) for (game, _), name in sets.items()]
    return [pk for pk in unmarked if pk is not None]


#: the Counter row whose lock orders departures from shared look-alike sets
LOOK_ALIKE_TURN = "look-alike departures"


def take_look_alike_turn(game: str, name: str, pk: int | None) -> None:
    """Call before the transaction that takes bot `pk` (named `name`) out of
    its look-alike set locks any bot: when other bots share its set, wait
    until every other such departure has committed.

    Leaving a shared set may unmark another user's kept bot
    (`anchor_look_alikes`), whose row is locked while its own departure is
    on the way. Two users deleted at once, each with a bot holding a set and
    a kept bot in the other's set, each deleted their own bots and then
    waited for the other's: PostgreSQL ended the deadlock by failing one
    request. Taking one lock first, before any bot's row (only the owners'
    rows come before it: `ladder.models.lock_user` gives the order), makes
    them take turns. A bot alone in its set unmarks no one, and stays alone
    (no new name can join a set), so it skips the wait."""
    shared = look_alikes(Bot.objects.filter(game=game), name).exclude(pk=pk)
    if shared.exists():
        Counter.lock(LOOK_ALIKE_TURN)


def bot_deleting(sender, instance: Bot, **kwargs) -> None:
    """Django's pre_delete of Bot (connected in `ladder.apps`): a delete of
    the ORM, a user's bots removed with the user included, sends it for every
    bot before it deletes any row (`take_look_alike_turn`)."""
    take_look_alike_turn(instance.game, instance.name, instance.pk)


def bot_deleted(sender, instance: Bot, **kwargs) -> None:
    """Django's post_delete of Bot (connected in `ladder.apps`): every delete
    of the ORM, a user's bots removed with the user included, runs in the
    delete's transaction. Not a migration's: its historical models send no
    signals, so it calls `anchor_every_look_alike_set` itself."""
    anchor_look_alikes(instance.game, instance.name)


def rename_bot(bot: Bot, name: str) -> None:
    """Give `bot` (staff, in the admin) a name held to the look-alike rule:
    the bot leaves the set of kept look-alikes if it was in one, and the
    constraint's next holder of its old set is chosen (`anchor_look_alikes`).
    NameTakenError when the name or a look-alike is taken, also by a bot
    stored since the caller's form looked; nothing is changed then."""
    with transaction.atomic():
        # the stored name: the caller's `bot` may carry the new one already
        stored = Bot.objects.filter(pk=bot.pk).values_list("game", "name").get()
        take_look_alike_turn(*stored, bot.pk)
        old = Bot.objects.select_for_update().get(pk=bot.pk)
        taken = name_taken(old.game, name, exclude_pk=old.pk)
        if taken:
            raise NameTakenError(taken)
        try:
            with transaction.atomic():  # a savepoint: the caller's transaction stays usable
                Bot.objects.filter(pk=old.pk).update(name=name, kept_look_alike=False)
        except IntegrityError:  # a look-alike was stored since name_taken looked
            taken = name_taken(old.game, name, exclude_pk=old.pk)
            raise NameTakenError(taken or f"the name {name!r} was just taken") from None
        anchor_look_alikes(old.game, old.name)
    bot.name, bot.kept_look_alike = name, False


def system_user():
    User = get_user_model()
    user, created = User.objects.get_or_create(
        username=SYSTEM_USERNAME, defaults={"email": "system@localhost"}
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def bot_limit_reached(owner) -> str:
    """Why `owner` may make no new bot, and what to do instead."""
    empty = sorted(
        Bot.objects.filter(owner=owner, versions__isnull=True).values_list("name", flat=True)
    )
    way_out = (
        f", or delete one that never had an upload ({', '.join(empty[:3])}"
        f"{', …' if len(empty) > 3 else ''}: DELETE /api/bots/<id>)"
        if empty
        else ""
    )
    return (
        f"you have {settings.MAX_BOTS_PER_USER} bots already, the limit of an account: "
        f"upload a new version to one of them instead (it keeps its name and rating)"
        f"{way_out}"
    )


def create_bot(owner, game: str, name: str, description: str = "", builtin: bool = False) -> Bot:
    """A new, empty bot; raises UploadError with a reason a user can act on."""
    get_game(game)  # unknown game → OptionError (a ValueError) naming it
    if not re.fullmatch(BOT_NAME_PATTERN, name) or len(name) > 40:
        raise UploadError(f"{name!r}: {BOT_NAME_RULE} (at most 40)")
    with transaction.atomic():
        if not builtin:
            if not lock_user(owner):  # the first lock (`lock_user` gives the order)
                raise Gone("your account was deleted; nothing was created")
            if Bot.objects.filter(owner=owner).count() >= settings.MAX_BOTS_PER_USER:
                raise LimitError(bot_limit_reached(owner))
        taken = name_taken(game, name, owner=owner)  # nor a look-alike (`name_key`)
        if taken:
            raise NameTakenError(taken)
        try:
            with transaction.atomic():  # a savepoint: a caller's transaction stays usable
                bot = Bot.objects.create(
                    owner=owner, game=game, name=name, description=description, is_builtin=builtin
                )
        except IntegrityError:  # a look-alike was created since name_taken looked
            taken = name_taken(game, name, owner=owner)
            raise NameTakenError(taken or f"the name {name!r} was just taken") from None
        Rating.objects.create(bot=bot)
    return bot


def delete_empty_bot(bot: Bot) -> None:
    """Remove a bot that never had an upload (a name taken by mistake, or
    left by a first upload that was refused); UploadError otherwise: a bot
    with versions keeps its matches and ratings on record. A bot deleted
    meanwhile (the same delete sent twice at once) is gone as asked: nothing
    to do, no error."""
    with transaction.atomic():
        stored = Bot.objects.filter(pk=bot.pk).values_list("game", "name").first()
        if stored is None:
            return
        take_look_alike_turn(*stored, bot.pk)  # before the row lock, as its delete's signal would
        locked = Bot.objects.select_for_update().filter(pk=bot.pk).first()
        if locked is None:
            return
        if BotVersion.objects.filter(bot=locked).exists():
            raise UploadError(
                f"{locked.name} has uploads, so its matches and ratings stay on record; "
                "only a bot without any upload can be deleted"
            )
        locked.delete()


def set_withdrawn(bot: Bot, withdrawn: bool) -> str:
    """The owner takes `bot` off the ladder (no new ladder matches) or puts it
    back. The ladder matches already drawn for it still play: a withdrawal
    cannot dodge an opponent seen in the queue, nor keep the lucky half of a
    mirrored pair and cancel its mirror (both found by QA). Its ratings,
    history and challenges are untouched. Returns what happened, for the
    owner; doing what is already done changes nothing."""
    with transaction.atomic():
        locked = Bot.objects.select_for_update().get(pk=bot.pk)
        if locked.withdrawn == withdrawn:
            state = "off the ladder already" if withdrawn else "on the ladder already"
            return f"{locked.name} is {state}."
        Bot.objects.filter(pk=locked.pk).update(withdrawn=withdrawn)
        locked.withdrawn = bot.withdrawn = withdrawn
        if withdrawn:
            drawn = (
                Match.objects.filter(
                    status__in=[Match.Status.QUEUED, Match.Status.RUNNING],
                    kind=Match.Kind.LADDER,
                    seats__version__bot_id=locked.pk,
                )
                .distinct()
                .count()
            )
            note = ""
            if drawn:
                plural = "es" if drawn > 1 else ""
                note = (
                    f" The {drawn} ladder match{plural} already drawn for it still play, "
                    "so that no pairing is dodged."
                )
            return f"{locked.name} is off the ladder: it gets no new ladder matches.{note}"
    name = locked.name
    if not locked.enabled:
        return f"{name} is back on the ladder, but the site's staff disabled it: it plays again once they enable it."
    if locked.paused_reason:
        return f"{name} is back on the ladder, but it is still paused ({locked.paused_reason})."
    if locked.active_version_id is None:
        return f"{name} is back on the ladder; it plays once a version of it is accepted."
    return f"{name} is back on the ladder."


def check_upload_rate(owner, reserved: RefusedUpload | None = None) -> None:
    """Refuse an upload over the hourly limit; call it with the owner locked.
    Stored versions and refused uploads both count: checking a file costs
    the server work whatever its verdict. So do uploads being checked right
    now (their reservation, `reserve_upload`), except the caller's own `reserved`."""
    now = timezone.now()
    since = now - timedelta(hours=1)
    limit = settings.MAX_UPLOADS_PER_HOUR
    stored = list(
        BotVersion.objects.filter(bot__owner=owner, created_at__gte=since)
        .order_by("-created_at")
        .values_list("created_at", flat=True)[:limit]
    )
    others = RefusedUpload.objects.filter(owner=owner, created_at__gte=since)
    if reserved is not None:
        others = others.exclude(pk=reserved.pk)
    refused = list(others.order_by("-created_at").values_list("created_at", flat=True)[:limit])
    times = sorted(stored + refused, reverse=True)
    if len(times) >= limit:
        # the window frees a place when the upload that made it full is an hour old
        freed = times[limit - 1]
        wait_s = max(1, math.ceil((freed + timedelta(hours=1) - now).total_seconds()))
        minutes = math.ceil(wait_s / 60)
        what = f"{len(times)} uploads in the last hour"
        if refused:
            # the same rows hold refusals and the places of uploads being
            # checked right now (`reserve_upload`): a burst's are not refused yet
            what += f" ({len(refused)} refused by the checks or still being checked)"
        raise LimitError(
            f"you made {what}; the limit is {limit} per hour (you can upload again in "
            f"{minutes} minute{'s' if minutes != 1 else ''})",
            retry_after_s=wait_s,
        )


def counts_against_limit(exc: Exception) -> bool:
    """A refusal by the file's checks; a limit or a name refusal costs no
    check, and a bot or owner that is gone has no limit left to count in."""
    return isinstance(exc, UploadError) and not isinstance(exc, (LimitError, NameTakenError, Gone))


def remember_refused_upload(owner, exc: Exception) -> None:
    """Count an upload refused by its checks towards the hourly limit (a QA
    adversary stalled the web processes with files that take seconds to
    compile and never pass). Call it outside the transaction that was rolled
    back; a limit or a name refusal costs no check and is not counted, nor is
    one `add_version` counted already (its reservation stays as the record)."""
    if counts_against_limit(exc) and not getattr(exc, "counted", False):
        RefusedUpload.objects.filter(
            owner=owner, created_at__lt=timezone.now() - timedelta(days=1)
        ).delete()
        RefusedUpload.objects.create(owner=owner)


def reserve_upload(bot: Bot) -> RefusedUpload | None:
    """Check the hourly limit of `bot`'s owner and take a place in it before the file is
    checked, so that uploads sent at the same moment count each other: each
    one's check takes seconds, and before this a burst of refused uploads all
    passed the limit while none of them was recorded yet (found by QA: 23
    checked against a limit of 20). The place is a RefusedUpload row, which
    stays if the checks refuse the file and is removed otherwise.

    Inside a caller's transaction (the upload page creating a new bot) a row
    would be rolled back with it: there the limit is checked without a
    reservation, as before, and the caller counts a refusal afterwards.
    Gone when the owner was deleted meanwhile."""
    owner = bot.owner
    if transaction.get_connection().in_atomic_block:
        check_upload_rate(owner)
        return None
    with transaction.atomic():
        if not lock_user(owner):  # the first lock (`lock_user` gives the order)
            raise Gone.bot(bot)
        check_upload_rate(owner)
        RefusedUpload.objects.filter(
            owner=owner, created_at__lt=timezone.now() - timedelta(days=1)
        ).delete()
        return RefusedUpload.objects.create(owner=owner)


def add_version(bot: Bot, filename: str, data: bytes, validate: bool = True) -> BotVersion:
    """Check and store an upload as the bot's next version, then queue its validation.

    Raises UploadError (nothing stored) when the upload is refused; one the
    hourly limit already counts has `counted` set (`remember_refused_upload`);
    Gone when the bot or its owner was deleted while the upload was on its way.
    """
    # early, before the work of checking the file, and holding a place in the limit
    reserved = None if bot.is_builtin else reserve_upload(bot)
    try:
        return _add_version(bot, filename, data, validate, reserved)
    except BaseException as exc:
        if reserved is not None:
            if counts_against_limit(exc):
                exc.counted = True  # the reservation stays as the refusal's record
            else:
                with contextlib.suppress(DatabaseError):  # if it stays, it counts: no harm
                    RefusedUpload.objects.filter(pk=reserved.pk).delete()
        raise


def _add_version(
    bot: Bot, filename: str, data: bytes, validate: bool, reserved: RefusedUpload | None
) -> BotVersion:
    checked = check_upload(filename, data, bot.game)
    with transaction.atomic():
        # Locks in the order of `lock_user`: the owner, then the bot. Either may
        # have been deleted while the file was checked, or while this waited
        # for the lock of the deletion: nothing is written then.
        if not bot.is_builtin:
            if not lock_user(bot.owner):
                raise Gone.bot(bot)
            check_upload_rate(bot.owner, reserved)  # again, now that no other upload can slip in
        if reserved is not None:  # the version takes its place in the limit
            RefusedUpload.objects.filter(pk=reserved.pk).delete()
        # The bot's row lock orders concurrent uploads of one bot: each sees the
        # version before it (for the number and the "identical" check).
        if not Bot.objects.select_for_update().filter(pk=bot.pk).exists():
            raise Gone.bot(bot)
        latest = bot.versions.order_by("-number").first()
        if latest is not None and not validation_was_unplayed(latest):
            check_not_identical(checked, latest.sha256)
        version = BotVersion(
            bot=bot,
            number=(latest.number if latest else 0) + 1,
            original_name=_fit(checked.original_name, ORIGINAL_NAME_MAX),
            sha256=checked.sha256,
            size_bytes=checked.size_bytes,
        )
        try:
            version.upload.save(checked.original_name, ContentFile(checked.data), save=False)
            version.save()
            _unpack(version, checked)
            if validate:
                queue_validation(version)
            else:
                mark_ready(version)
        except BaseException as exc:
            # The transaction forgets the version; its files must go too. The
            # folder of its number is this attempt's alone (the number is taken
            # under the bot's lock), also when a failed write left a part there.
            shutil.rmtree(
                Path(version.upload.storage.path(attempt_dir(version))), ignore_errors=True
            )
            if version.pk is not None:
                shutil.rmtree(version.code_dir, ignore_errors=True)
            if isinstance(exc, OSError):
                why = exc.strerror or type(exc).__name__
                raise StorageFailure(
                    f"the server could not store your upload ({why}); nothing was stored, "
                    "please try again later"
                ) from exc
            raise
    return version


def attempt_dir(version: BotVersion) -> str:
    """The media folder of a version's upload (`version_upload_path`'s folder)."""
    return str(Path(version_upload_path(version, "x")).parent)


ORIGINAL_NAME_MAX = BotVersion._meta.get_field("original_name").max_length


def _fit(name: str, limit: int) -> str:
    """`name` cut to `limit` characters, keeping its extension."""
    if len(name) <= limit:
        return name
    suffix = Path(name).suffix[:10]
    return name[: limit - len(suffix) - 1] + "…" + suffix


def _unpack(version: BotVersion, checked: CheckedUpload) -> None:
    target = version.code_dir
    if target.exists():
        shutil.rmtree(target)
    for relpath, content in checked.files.items():
        path = target / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    # The sandbox mounts this folder read-only into an unprivileged container.
    for path in [target, *target.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)


def mark_ready(version: BotVersion) -> None:
    BotVersion.objects.filter(pk=version.pk).update(
        status=BotVersion.Status.READY, decided_at=timezone.now()
    )
    activate(version)


def validation_was_unplayed(version: BotVersion) -> bool:
    """A version rejected although it never faulted: its validation could not
    be played (see `ladder.results.give_up_validation`)."""
    if version.status != BotVersion.Status.REJECTED:
        return False
    own_faults = MatchSeat.objects.filter(match__validates=version, version=version).exclude(
        fault=""
    )
    return not own_faults.exists()


def queue_validation(version: BotVersion) -> list[Match]:
    """Validation matches of a new version against the game's built-in random
    bot, under the rules the ladder plays."""
    bot = version.bot
    game = get_game(bot.game)
    options = LadderSettings.get().options_for(bot.game)
    try:
        game.validate_options(options)
    except OptionError as exc:  # only an engine upgrade makes saved options stale
        raise UploadError(
            f"uploads for {game.name} are closed until an administrator fixes the "
            f"ladder's game options ({exc})"
        ) from None
    opponent = builtin_version(bot.game, "random")
    seats = min(game.seat_counts)
    matches = []
    for i in range(settings.VALIDATION_MATCHES):
        lineup = [opponent] * seats
        lineup[i % seats] = version
        matches.append(
            create_match(
                bot.game,
                lineup,
                kind=Match.Kind.VALIDATION,
                rated=False,
                options=options,
                validates=version,
            )
        )
    return matches


def zip_directory(folder: Path) -> bytes:
    """The folder's files as a zip that depends only on their names and bytes
    (no timestamps), so an unchanged example bot is not a new version after a
    checkout or a touch."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                info = zipfile.ZipInfo(path.relative_to(folder).as_posix(), (1980, 1, 1, 0, 0, 0))
                info.external_attr = 0o644 << 16
                archive.writestr(info, path.read_bytes(), zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def install_builtin(game: str, name: str, owner=None, bot_name: str | None = None) -> Bot:
    """Create (or update) a bot from one of the example bots shipped in bots/."""
    owner = owner or system_user()
    bot_name = bot_name or f"builtin-{name}"
    data = zip_directory(builtin_bot_dir(game, name))
    bot = Bot.objects.filter(game=game, name=bot_name).first()
    if bot is None:
        bot = create_bot(owner, game, bot_name, f"the example {name} bot", builtin=True)
    latest = bot.versions.order_by("-number").first()
    if latest is None or latest.sha256 != _sha(data):
        add_version(bot, f"{name}.zip", data, validate=False)
        bot.refresh_from_db()
    return bot


def builtin_version(game: str, name: str) -> BotVersion:
    bot = Bot.objects.filter(game=game, name=f"builtin-{name}", is_builtin=True).first()
    if bot is None or bot.active_version is None:
        bot = install_builtin(game, name)
    return bot.active_version


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
