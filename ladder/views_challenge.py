"""Challenges on the site: the form that asks for one, and the list of your own.

The rules are ladder/challenges.py's, the same as `POST /api/challenges`:
the form only gathers the bot ids and option values and shows the
ChallengeError it gets back, with the choices kept.
"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Prefetch
from django.forms.utils import flatatt
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe

from arena import GameDef, get_game, option_value
from ladder.challenges import (
    NOT_YOURS,
    ChallengeError,
    create_challenge,
    open_challenges,
)
from ladder.game_options import PATH_OPTIONS, describe, game_rules
from ladder.models import Bot, LadderSettings, Match, MatchSeat

CHALLENGES_PAGE_SIZE = 25


def opponent_options(bot: Bot) -> str:
    """The `<option>`s of the bots `bot` may challenge, grouped: the owner's
    other bots, the examples, everyone else's; each group by name."""
    others = (
        Bot.objects.filter(game=bot.game, enabled=True, active_version__isnull=False)
        .exclude(pk=bot.pk)
        .order_by("name", "pk")
        .values_list("pk", "name", "is_builtin", "owner_id", "owner__username")
    )
    yours, examples, theirs = [], [], []
    for pk, name, is_builtin, owner_id, username in others:  # rows, not models: fast
        if owner_id == bot.owner_id:
            yours.append((pk, name))
        elif is_builtin:
            examples.append((pk, name))
        else:
            theirs.append((pk, f"{name} ({username})"))
    groups = [("Your bots", yours), ("Examples", examples), ("Other players' bots", theirs)]
    html = ['<option value="">—</option>']
    for label, items in groups:
        if items:
            html.append(f'<optgroup label="{escape(label)}">')
            html.extend(f'<option value="{pk}">{escape(text)}</option>' for pk, text in items)
            html.append("</optgroup>")
    return "".join(html)


class OpponentSelect(forms.Widget):
    """A `<select>` over every bot of the game, its options written once for
    all seats: Django's template per option took 1.3 s for the four seats of
    Edel, Stein & Reich with 1,000 bots, and 12 s with 10,000."""

    def __init__(self, options: str, attrs: dict | None = None) -> None:
        super().__init__(attrs)
        self.options = options

    def render(self, name, value, attrs=None, renderer=None) -> str:
        options = self.options
        if value:  # the bot chosen before a refusal stays chosen
            chosen = f'<option value="{escape(value)}">'
            options = options.replace(chosen, f'<option value="{escape(value)}" selected>', 1)
        final_attrs = self.build_attrs(self.attrs, attrs)
        return format_html(
            '<select name="{}"{}>{}</select>', name, flatatt(final_attrs), mark_safe(options)
        )


def shown(value: Any) -> str:
    """An option value as a person types it: JSON, a plain word unquoted."""
    return value if isinstance(value, str) else json.dumps(value)


class ChallengeForm(forms.Form):
    """One field per opponent seat (seat 1 up to the game's largest table) and
    one per game option, empty meaning "as on the ladder"."""

    def __init__(self, bot: Bot, game: GameDef, ladder_options: dict, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.game = game
        options = opponent_options(bot)
        fewest = min(game.seat_counts) - 1
        for seat in range(1, max(game.seat_counts)):
            attrs = {"required": True} if seat <= fewest else {}
            needed = "" if seat <= fewest else " (optional)"
            self.fields[f"opponent_{seat}"] = forms.CharField(
                required=False,  # the seat count is checked with the other rules
                label=f"Seat {seat + 1}{needed}",
                widget=OpponentSelect(options, attrs),
            )
        ladder = game.validate_options(ladder_options)
        # the game's help is plain text; the field partial prints help as HTML (Django's
        # password rules are a list), so it is escaped here
        for name, spec in game.options.items():
            current = ladder[name]
            if name in PATH_OPTIONS:
                as_ladder = "the house values" if current is None else "the operator's data"
                field = forms.CharField(
                    widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}),
                    # not the game's help: it offers a file path, which the ladder refuses
                    help_text="Component data replacing the house values, as a JSON object "
                    "(not a file path: workers may run on other hosts); null plays the house "
                    f"values. Empty: as on the ladder ({as_ladder}).",
                )
            elif isinstance(spec.default, bool):
                field = forms.ChoiceField(
                    choices=[("", f"as on the ladder ({shown(current)})"), *BOOL_CHOICES],
                    help_text=escape(spec.help),
                )
            else:
                field = forms.CharField(
                    max_length=200,
                    widget=forms.TextInput(attrs={"placeholder": shown(current)}),
                    help_text=escape(f"{spec.help}. Empty: as on the ladder ({shown(current)})."),
                )
            field.required = False
            field.label = name
            self.fields[f"option_{name}"] = field

    def opponent_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.fields if name.startswith("opponent_")]

    def option_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.fields if name.startswith("option_")]

    def opponents(self) -> list[int]:
        """The chosen bots in seat order, empty seats left out."""
        chosen = []
        for bound in self.opponent_fields():
            value = self.cleaned_data.get(bound.name, "").strip()
            if not value:
                continue
            if not value.isdigit() or len(value) > 19:
                raise ChallengeError(422, f"{bound.label}: no bot id: {value!r}", "opponents")
            chosen.append(int(value))
        return chosen

    def clean(self) -> dict[str, Any]:
        """The options set are read once, as `arena play -o` reads them, into
        `options()`, as the API would receive them."""
        cleaned = super().clean()
        self.typed_options: dict[str, Any] = {}
        for name in self.game.options:
            text = (cleaned.get(f"option_{name}") or "").strip()
            if not text:
                continue
            try:
                self.typed_options[name] = option_value(text)
            except ValueError as exc:  # nested too deeply: was a 500 (security QA)
                self.add_error(None, f"option {name}: {exc}")
        return cleaned

    def options(self) -> dict[str, Any]:
        return self.typed_options


BOOL_CHOICES = [("true", "true"), ("false", "false")]


@login_required
def challenge(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Ask for a challenge with one of your bots; on success, the new match's page."""
    bot = get_object_or_404(Bot.objects.select_related("active_version", "owner"), pk=bot_id)
    game = get_game(bot.game)
    ctx: dict[str, Any] = {"bot": bot, "game": game}
    refusal = ""
    if bot.owner_id != request.user.pk:
        refusal = f"{NOT_YOURS[0].upper()}{NOT_YOURS[1:]}: {bot.name} is {bot.owner.username}'s"
        status = 403
    elif not bot.enabled:
        refusal, status = f"{bot.name} is disabled, so it cannot play challenges", 409
    elif bot.active_version is None:
        refusal, status = (
            f"{bot.name} has no ready version yet: a challenge plays a bot's active version",
            409,
        )
    if refusal:
        ctx["refusal"] = refusal
        return render(request, "ladder/challenge.html", ctx, status=status)

    ladder_options = LadderSettings.get().options_for(game.id)
    form = ChallengeForm(bot, game, ladder_options, request.POST or None)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                match = create_challenge(request.user, bot.pk, form.opponents(), form.options())
            except ChallengeError as exc:
                form.add_error(None, exc.message)
                ctx["options_error"] = exc.field == "options"
                status = exc.status
            else:
                messages.success(
                    request,
                    f"Challenge queued: match #{match.pk}. It is unrated and takes its turn "
                    "with the ladder's matches; this page follows it.",
                )
                return redirect("match", match.pk)
    longest = game.max_steps(game.validate_options(ladder_options))
    ctx.update(
        form=form,
        rules=game_rules(game, ladder_options),
        longest=longest,
        open_count=open_challenges(request.user),
        max_open=settings.MAX_OPEN_CHALLENGES,
        seat_counts=", ".join(map(str, game.seat_counts)),
        fewest=min(game.seat_counts) - 1,
        # the options stay folded away unless one is set or was refused
        options_open=ctx.get("options_error")
        or any(form[f"option_{name}"].value() for name in game.options),
    )
    return render(request, "ladder/challenge.html", ctx, status=status)


@login_required
def my_challenges(request: HttpRequest) -> HttpResponse:
    """The challenges you asked for, newest first: status, table, result."""
    seats = MatchSeat.objects.select_related("version__bot").order_by("seat")
    matches = (
        Match.objects.filter(kind=Match.Kind.CHALLENGE, requested_by=request.user)
        .prefetch_related(Prefetch("seats", queryset=seats))
        .order_by("-created_at", "-pk")
    )
    page = Paginator(matches, CHALLENGES_PAGE_SIZE).get_page(request.GET.get("page"))
    rows = []
    for match in page.object_list:
        table = list(match.seats.all())
        winners = [s.version.bot.name for s in table if s.rank == 1]
        rows.append(
            {
                "match": match,
                "challenger": table[0] if table else None,
                "opponents": table[1:],
                "winners": winners,
                "options": describe(get_game(match.game), match.options),
            }
        )
    ctx = {
        "page": page,
        "rows": rows,
        "open_count": open_challenges(request.user),
        "max_open": settings.MAX_OPEN_CHALLENGES,
    }
    return render(request, "ladder/challenges.html", ctx)
