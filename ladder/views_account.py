"""Accounts: sign-up and log-in (both limited per address, ladder/throttle.py),
log-out, the account page, API tokens, taking a bot of yours off the ladder and back. The password change is Django's own view with our templates (ladder/urls.py)."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.db.models import Exists, OuterRef
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from ladder import throttle
from ladder.bots import set_withdrawn
from ladder.forms import SignupForm, TokenForm
from ladder.models import Bot, BotVersion
from ladder.tokens import TokenError, create_token, list_tokens, revoke_token


class LoginView(auth_views.LoginView):
    """Django's login page; a signed-in visitor goes on to `next` or the account page.
    A `next` that leads back to the login page itself is dropped: Django would
    otherwise refuse the redirection loop with a server error. Failed
    sign-ins are limited per address (`ladder.throttle`): past a limit the
    page answers 429 and says when to try again."""

    redirect_authenticated_user = True
    next_page = "account"
    authentication_form = throttle.SignInForm

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if throttle.is_throttled(form):
            response.status_code = 429
        return response

    def get_redirect_url(self) -> str:
        url = super().get_redirect_url()
        return "" if urlsplit(url).path == self.request.path else url


class LogoutView(auth_views.LogoutView):
    """Django's log-out, which logs out on POST only (a link or an image on
    another site must not sign anyone out). A GET, from a bookmark or a typed
    address, gets a page with the button instead of a bare 405."""

    http_method_names = ["get", "head", "post", "options"]
    template_name = "registration/logout.html"  # GET only: a POST redirects


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("account")
    form = SignupForm(request.POST or None)
    address = throttle.client_address(request)
    if request.method == "POST" and form.is_valid() and (user := form.save_unique(address)):
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}. Upload your first bot below.")
        return redirect("upload")
    status = 429 if throttle.is_throttled(form) else 200
    return render(request, "registration/signup.html", {"form": form}, status=status)


@login_required
def account(request: HttpRequest) -> HttpResponse:
    validating = BotVersion.objects.filter(bot=OuterRef("pk"), status=BotVersion.Status.PENDING)
    bots = (
        Bot.objects.filter(owner=request.user)
        .select_related("rating", "active_version")
        .annotate(validating=Exists(validating))
        .order_by("game", "name")
    )
    return render(request, "ladder/account.html", {"bots": list(bots)})


@login_required
def tokens(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST or None)
    created = raw = None
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                created, raw = create_token(request.user, form.cleaned_data["name"])
            except TokenError as exc:
                form.add_error("name", str(exc))
            else:
                form = TokenForm()
        if raw is None:
            status = 400
    ctx = {
        "form": form,
        "created": created,
        "raw": raw,  # shown on this response only; never stored
        "tokens": list(list_tokens(request.user, include_revoked=True)[:100]),
    }
    response = render(request, "ladder/tokens.html", ctx, status=status)
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    if revoke_token(request.user, token_id):
        messages.success(request, "Token revoked; programs using it can no longer sign in.")
    else:
        messages.error(request, "No such active token of yours (already revoked?).")
    return redirect("tokens")


@login_required
@require_POST
def bot_ladder(request: HttpRequest, bot_id: int) -> HttpResponse:
    """The owner's switch: `withdrawn=1` takes the bot off the ladder, `0` puts it back."""
    bot = Bot.objects.filter(pk=bot_id, owner=request.user).first()
    if bot is None:  # not a bot, or not yours: the same answer
        raise Http404("No such bot of yours.")
    choice = request.POST.get("withdrawn")
    if choice not in ("0", "1"):
        messages.error(
            request, "Nothing changed: the form said neither off nor back on the ladder."
        )
    else:
        messages.success(request, set_withdrawn(bot, choice == "1"))
    return redirect("bot", bot.pk)
