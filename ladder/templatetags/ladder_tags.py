"""Small formatting helpers for the ladder's templates."""

from __future__ import annotations

from urllib.parse import urlencode

from django import template
from django.forms import BoundField
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.timesince import timesince

from arena import all_games, get_game

register = template.Library()


@register.simple_tag
def nav_games():
    return all_games()


#: the header's links: the page each leads to, and the other pages of its section
NAV_SECTIONS = {
    "leaderboard": ("bot", "version", "challenge", "match"),
    "tournaments": ("tournament",),
    "queue": (),
    "docs": ("getting_started", "faq", "doc_page", "game_docs"),
    "status": (),
}


@register.simple_tag(takes_context=True)
def nav_current(context, link: str, game_id: str = "") -> str:
    """` aria-current="page"` for the header link of the page shown, `="true"`
    for the link of its section (a game's leaderboard on its bots' pages)."""
    found = getattr(context.get("request"), "resolver_match", None)  # none on the 500 page
    here = found.url_name if found else None
    if game_id and getattr(context.get("game"), "id", None) != game_id:
        return ""
    if here == link:
        return mark_safe(' aria-current="page"')
    if here in NAV_SECTIONS[link]:
        return mark_safe(' aria-current="true"')
    return ""


@register.filter
def elo(value) -> str:
    """A rating as a whole number, or a dash when there is none."""
    return "—" if value is None else f"{value:.0f}"


@register.filter
def signed(value, digits: int = 0) -> str:
    """+12 / −5 (a true minus sign), a dash for None."""
    if value is None:
        return "—"
    text = f"{abs(value):.{int(digits)}f}"
    if float(text) == 0:
        return "±0"
    return ("+" if value > 0 else "−") + text


@register.filter
def keep_version(label: str) -> str:
    """A seat's label ("jade-greedy v3") whose version never starts a line: a
    label too wide for its line breaks inside the name, at a hyphen when it has
    one ("alice-very-long-" / "bot v3"), rather than leave "v3" alone."""
    name, space, version = label.rpartition(" ")
    return f"{name}\u00a0{version}" if space else label


@register.filter
def percent(value) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


@register.filter
def half_width(rating) -> str:
    """± half of the 95 % interval of a Rating (or a history row)."""
    if rating is None or rating.fitted_low is None or rating.fitted_high is None:
        return ""
    return f"±{(rating.fitted_high - rating.fitted_low) / 2:.0f}"


@register.simple_tag(takes_context=True)
def query(context, **changes) -> str:
    """The current query string with some parameters replaced (None removes one)."""
    params = context["request"].GET.copy()
    for key, value in changes.items():
        if value is None:
            params.pop(key, None)
        else:
            params[key] = value
    return "?" + urlencode(sorted(params.items())) if params else "?"


@register.filter
def duration(value) -> str:
    """A timedelta in the largest sensible unit: "40 s", "12 min", "3 h"."""
    seconds = value.total_seconds()
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@register.filter
def ago(value) -> str:
    """How long ago a moment was, for people: "just now" under a minute (Django's
    timesince says "0 minutes", which read as a number without meaning), then
    "3 minutes ago", "1 hour, 5 minutes ago"."""
    if not value:
        return ""
    if (timezone.now() - value).total_seconds() < 60:
        return "just now"
    return f"{timesince(value)} ago"


@register.filter
def players(game) -> str:
    """ "2 players" or "3–5 players" from a game's seat counts."""
    counts = sorted(game.seat_counts)
    span = str(counts[0]) if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
    return f"{span} players"


@register.filter
def game_name(game_id: str) -> str:
    try:
        return get_game(game_id).name
    except ValueError:
        return game_id


@register.filter
def widget(field: BoundField) -> str:
    """The field's widget; on a form shown again with errors without its
    autofocus (Django's log-in, sign-up and password forms set one), which
    would otherwise pull the focus away from the error summary."""
    if field.form.errors:
        return field.as_widget(attrs={"autofocus": False})
    return field.as_widget()
