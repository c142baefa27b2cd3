"""Accounts: sign-up and log-in (both limited per address, ladder/throttle.py),
log-out, the account page, password change and reset, the email address and
the page of the link that confirms a new one, API tokens, taking a bot of
yours off the ladder and back. Password pages are
Django's views with our forms and templates."""

from __future__ import annotations

from urllib.parse import urlsplit

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.db.models import Exists, OuterRef
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.views.decorators.http import require_POST

from ladder import email_change, throttle
from ladder.bots import set_withdrawn
from ladder.forms import EmailForm, PasswordChangeForm, SignupForm, TokenForm
from ladder.models import Bot, BotVersion
from ladder.tokens import TokenError, create_token, list_tokens, revoke_token


def status_of(form) -> int:
    """A form page's status: 429 when a limit refused it (`ladder.throttle`)."""
    return 429 if throttle.is_throttled(form) else 200


class ThrottledStatus:
    """A class view whose refused form answers `status_of` it."""

    def form_invalid(self, form):
        response = super().form_invalid(form)
        response.status_code = status_of(form)
        return response


class LoginView(ThrottledStatus, auth_views.LoginView):
    """Django's login page; a signed-in visitor goes on to `next` or the account page.
    A `next` that leads back to the login page itself is dropped: Django would
    otherwise refuse the redirection loop with a server error. Failed
    sign-ins are limited per address (`ladder.throttle`): past a limit the
    page answers 429 and says when to try again."""

    redirect_authenticated_user = True
    next_page = "account"
    authentication_form = throttle.SignInForm

    def get_redirect_url(self) -> str:
        url = super().get_redirect_url()
        return "" if urlsplit(url).path == self.request.path else url


class LogoutView(auth_views.LogoutView):
    """Django's log-out, which logs out on POST only (a link or an image on
    another site must not sign anyone out). A GET, from a bookmark or a typed
    address, gets a page with the button instead of a bare 405."""

    http_method_names = ["get", "head", "post", "options"]
    template_name = "registration/logout.html"  # GET only: a POST redirects


class PasswordChangeView(ThrottledStatus, auth_views.PasswordChangeView):
    """Django's; the current password counts as a sign-in."""

    form_class = PasswordChangeForm
    success_url = reverse_lazy("password_change_done")

    def get_form_kwargs(self):
        return super().get_form_kwargs() | {"request": self.request}


class PasswordResetView(ThrottledStatus, auth_views.PasswordResetView):
    """ "Forgot your password?": a link by mail to the account's address,
    limited per client address and per email address (`ladder.throttle`).
    Whether an account has the address is never shown, and so a mail server
    that fails is only logged (Django's form does it). A site that sends no
    mail (production without EMAIL_HOST) says whom to ask instead."""

    template_name = "registration/password_reset_form.html"
    email_template_name = "registration/password_reset_email.txt"
    subject_template_name = "registration/password_reset_subject.txt"
    success_url = reverse_lazy("password_reset_done")

    def get_context_data(self, **kwargs):
        return super().get_context_data(**kwargs) | {"sends_email": settings.SENDS_EMAIL}

    def post(self, request, *args, **kwargs):
        if not settings.SENDS_EMAIL:
            return self.get(request, *args, **kwargs)
        return super().post(request, *args, **kwargs)

    def form_valid(self, form):
        address = throttle.client_address(self.request)
        refusal = throttle.link_mail_refusal(address)
        if refusal:
            form.add_error(None, forms.ValidationError(refusal, code=throttle.THROTTLED))
            return self.form_invalid(form)
        if throttle.link_mail_due(address, form.cleaned_data["email"]) is not None:
            return super().form_valid(form)  # sends the mail, if an account has the address
        return redirect(self.success_url)


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """The link's page: a new password, after which the account's failed
    sign-ins are forgotten (the owner has shown they hold its mail)."""

    success_url = reverse_lazy("password_reset_complete")

    def form_valid(self, form):
        response = super().form_valid(form)
        throttle.password_was_reset(form.user)
        return response


@login_required
def email(request: HttpRequest) -> HttpResponse:
    form = EmailForm(request.user, request.POST or None, request=request)
    if request.method == "POST" and form.is_valid():
        messages.add_message(request, *form.save())
        return redirect("account")
    ctx = {"form": form, "pending": email_change.pending(request)}
    return render(request, "registration/email_form.html", ctx, status=status_of(form))


@login_required
def email_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """The page of a link mailed to a new address: what it will do and a
    button, so that a mail program or scanner that opens links changes nothing;
    the button's POST makes the address the account's. Only the account's
    owner, signed in, may (`ladder.email_change`)."""
    found = email_change.check(token, request.user)
    if found.problem:
        ctx = {"problem": found.problem}
        return render(request, "registration/email_confirm.html", ctx, status=400)
    if request.method == "POST":
        email_change.confirm(request, found.email)
        messages.success(request, f"Your email address is now {found.email}.")
        return redirect("account")
    return render(request, "registration/email_confirm.html", {"email": found.email})


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("account")
    form = SignupForm(request.POST or None)
    address = throttle.client_address(request)
    if request.method == "POST" and form.is_valid() and (user := form.save_unique(address)):
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}. Upload your first bot below.")
        if form.cleaned_data.get("email"):
            messages.add_message(
                request, *email_change.request_change(request, user, form.cleaned_data["email"])
            )
        return redirect("upload")
    return render(request, "registration/signup.html", {"form": form}, status=status_of(form))


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
