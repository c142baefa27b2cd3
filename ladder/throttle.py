"""Limits on password guessing and account making, per client address.

* Sign-in: at most LOGIN_FAILURES_PER_ACCOUNT failed sign-ins for one user
  name from one address, and LOGIN_FAILURES_PER_ADDRESS for any names from
  one address, within LOGIN_FAILURE_WINDOW_MINUTES. Past either, the
  password is not even checked (a check costs the server a PBKDF2 hash)
  and the form says when to try again. Keyed by address, so a guesser
  cannot lock the owner of an account out from elsewhere. A successful
  sign-in forgets that address's failures for that name.
* Sign-up: at most SIGNUPS_PER_ADDRESS_PER_HOUR accounts from one address.
* Mails with a link (a password reset, a new email address to confirm): at
  most PASSWORD_RESETS_PER_ADDRESS_PER_HOUR requests from one address, and
  one mail an hour to any one email address, the two kinds counted together.
* The current password asked again by the password-change and email forms
  counts as a sign-in (`check_current_password`): a borrowed session cannot
  be used to guess it.

Both forms of sign-in use it: the site's page and the admin's
(`ThrottledSignIn`). Each attempt is stored (`AuthAttempt`) before it is
counted, so requests sent at the same moment cannot all slip under a limit;
an attempt refused is removed again, so the limit bounds the passwords
checked. The admin lists the rows; deleting them lets somebody in at once.
"""

from __future__ import annotations

import ipaddress
import math
from datetime import timedelta

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import NON_FIELD_ERRORS
from django.http import HttpRequest
from django.utils import timezone

from ladder.models import AuthAttempt

#: the code of the form error that refuses an attempt (the views answer 429)
THROTTLED = "throttled"


def client_address(request: HttpRequest | None) -> str:
    """The client's address as the limits count it: the IP address that
    CLIENT_ADDRESS_FROM says to take (an X-Forwarded-For without a valid
    last address falls back to the peer); an IPv6 address as its /64
    network, since one line or machine commonly holds a whole /64 and could
    otherwise take a new address for every guess."""
    if request is None:
        return "unknown"
    found = request.META.get("REMOTE_ADDR") or ""
    if settings.CLIENT_ADDRESS_FROM == "x-forwarded-for":
        last = request.META.get("HTTP_X_FORWARDED_FOR", "").rsplit(",", 1)[-1].strip()
        found = last if _parse(last) is not None else found
    address = _parse(found)
    if address is None:
        return (found or "unknown")[:45]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def _parse(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _wait_text(oldest, window: timedelta) -> str:
    minutes = max(1, math.ceil((oldest + window - timezone.now()).total_seconds() / 60))
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def begin_sign_in(username: str, address: str) -> tuple[AuthAttempt | None, str]:
    """Store the attempt as a failure, then count: (the row, "") when the
    password may be checked, else (None, why not) with the row removed."""
    account = username.lower()
    window = timedelta(minutes=settings.LOGIN_FAILURE_WINDOW_MINUTES)
    attempt = AuthAttempt.objects.create(
        kind=AuthAttempt.Kind.LOGIN_FAILURE, address=address, account=account
    )
    recent = AuthAttempt.objects.filter(
        kind=AuthAttempt.Kind.LOGIN_FAILURE, address=address, at__gt=timezone.now() - window
    )
    for rows, limit, what in (
        (
            recent.filter(account=account),
            settings.LOGIN_FAILURES_PER_ACCOUNT,
            "for this user name from your address",
        ),
        (recent, settings.LOGIN_FAILURES_PER_ADDRESS, "from your address"),
    ):
        if rows.count() > limit:
            attempt.delete()
            # the failure whose expiry frees a place (the window's start if
            # others were forgotten meanwhile)
            earlier = list(rows.order_by("-at").values_list("at", flat=True)[:limit])
            oldest = earlier[-1] if len(earlier) == limit else timezone.now() - window
            return None, (
                f"Too many failed sign-ins {what}: {limit} in "
                f"{settings.LOGIN_FAILURE_WINDOW_MINUTES} minutes. "
                f"Try again in {_wait_text(oldest, window)}."
            )
    return attempt, ""


def signed_in(attempt: AuthAttempt) -> None:
    """The password was right: forget this address's failures for the name."""
    AuthAttempt.objects.filter(
        kind=AuthAttempt.Kind.LOGIN_FAILURE, address=attempt.address, account=attempt.account
    ).delete()


class ThrottledSignIn:
    """Mixed into Django's sign-in forms (the site's and the admin's): an
    attempt over a limit gets a form error with code THROTTLED, and its
    password is not checked."""

    def clean(self):
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if not username or not password:
            return super().clean()  # Django's own "required" errors
        attempt, refusal = begin_sign_in(username, client_address(self.request))
        if attempt is None:
            raise forms.ValidationError(refusal, code=THROTTLED)
        cleaned = super().clean()  # raises for a wrong password: the failure stays
        signed_in(attempt)
        return cleaned


class SignInForm(ThrottledSignIn, AuthenticationForm):
    pass


class AdminSignInForm(ThrottledSignIn, AdminAuthenticationForm):
    pass


def _hourly_refusal(kind: str, address: str, limit: int, done: str) -> str:
    since = timezone.now() - timedelta(hours=1)
    made = AuthAttempt.objects.filter(kind=kind, address=address, at__gt=since)
    if made.count() < limit:
        return ""
    oldest = list(made.order_by("-at").values_list("at", flat=True)[:limit])[-1]
    return (
        f"{limit} {done} from your address in the last hour, the limit. "
        f"Try again in {_wait_text(oldest, timedelta(hours=1))}."
    )


def signup_refusal(address: str) -> str:
    """Why `address` may not make another account now ("" if it may); call
    it holding the sign-up lock (`ladder.forms.SignupForm.save_unique`)."""
    return _hourly_refusal(
        AuthAttempt.Kind.SIGNUP,
        address,
        settings.SIGNUPS_PER_ADDRESS_PER_HOUR,
        "accounts were made",
    )


def signed_up(address: str) -> None:
    AuthAttempt.objects.create(kind=AuthAttempt.Kind.SIGNUP, address=address)


def link_mail_refusal(address: str) -> str:
    """Why `address` may not have the site mail another link now: a password
    reset or a new email address to confirm (`ladder.email_change`); "" if it may."""
    return _hourly_refusal(
        AuthAttempt.Kind.PASSWORD_RESET,
        address,
        settings.PASSWORD_RESETS_PER_ADDRESS_PER_HOUR,
        "password resets or new addresses to confirm were asked for",
    )


def link_mail_due(address: str, email: str) -> AuthAttempt | None:
    """Record a link mail asked from `address` for `email`; the record if the
    mail may go to that email address, None if not: one an hour at most, so
    nobody can flood an inbox from many addresses. Deleting the record (the
    mail server failed) forgets the request."""
    email = email.lower()
    since = timezone.now() - timedelta(hours=1)
    sent_lately = AuthAttempt.objects.filter(
        kind=AuthAttempt.Kind.PASSWORD_RESET, account=email, at__gt=since
    ).exists()
    record = AuthAttempt.objects.create(
        kind=AuthAttempt.Kind.PASSWORD_RESET, address=address, account=email
    )
    return None if sent_lately else record


def password_was_reset(user) -> None:
    """The owner proved they hold the account's email: forget every address's
    failed sign-ins for its name."""
    AuthAttempt.objects.filter(
        kind=AuthAttempt.Kind.LOGIN_FAILURE, account=user.get_username().lower()
    ).delete()


def check_current_password(user, raw: str, request: HttpRequest | None) -> None:
    """A signed-in user's current password, asked again by a form (password
    change, email change): ValidationError when it is wrong or over a
    sign-in limit. It counts as a sign-in, so a borrowed session cannot be
    used to guess it."""
    attempt, refusal = begin_sign_in(user.get_username(), client_address(request))
    if attempt is None:
        raise forms.ValidationError(refusal, code=THROTTLED)
    if not user.check_password(raw):
        raise forms.ValidationError(
            "Your password was entered incorrectly. Please enter it again.",
            code="password_incorrect",
        )
    signed_in(attempt)


def prune(now=None) -> int:
    """Delete the attempts no limit counts any more; how many went."""
    now = now or timezone.now()
    longest = max(timedelta(minutes=settings.LOGIN_FAILURE_WINDOW_MINUTES), timedelta(hours=1))
    deleted, _ = AuthAttempt.objects.filter(at__lt=now - longest).delete()
    return deleted


def is_throttled(form: forms.Form) -> bool:
    """Whether a limit refused the form (its views answer 429)."""
    return any(form.has_error(field, THROTTLED) for field in [NON_FIELD_ERRORS, *form.fields])
