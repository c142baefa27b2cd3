"""A new email address is used only once its owner opened the link mailed to it.

Setting or changing the address (the email page, the sign-up form) stores
nothing on the account: it mails the new address a link, and the account's
address stays what it was until its owner, signed in, presses the button of
the link's page. A typo, or somebody else's address, so never receives the
account's password-reset links. The link is a signed token (no table): the
user's id, the new address and a digest of the account's current address and
password hash, so it stops working once either changes (another address was
confirmed, the password was changed or reset), and after CONFIRM_MAX_AGE.
Signing in is asked for as well, so that a stranger who got the mail (the
address was mistyped) cannot make it the account's address.

Link mails are limited like the password-reset ones, by the same records
(`ladder.throttle.link_mail_refusal`, `link_mail_due`). The newest pending
address is kept in the session that asked for it, so the email page of that
browser can show it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib import messages
from django.core import signing
from django.core.mail import send_mail
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

from ladder import throttle

log = logging.getLogger(__name__)

#: how long a confirmation link works
CONFIRM_MAX_AGE = timedelta(days=3)
_SALT = "ladder.email_change"
#: the session key of the newest link mailed from this session
_PENDING = "email_change"


def _state(user) -> str:
    """A digest of what a link is bound to: the account's address and password hash."""
    return salted_hmac(_SALT, f"{user.pk}\0{user.email}\0{user.password}").hexdigest()


def make_token(user, new: str) -> str:
    return signing.dumps({"u": user.pk, "e": new, "s": _state(user)}, salt=_SALT, compress=True)


@dataclass(frozen=True)
class Confirmation:
    """What a link asks: `email` when it may be confirmed now, else `problem` says why not."""

    email: str = ""
    problem: str = ""


def check(token: str, user) -> Confirmation:
    """Whether the signed-in `user` may make the link's address theirs now."""
    days = CONFIRM_MAX_AGE.days
    try:
        data = signing.loads(token, salt=_SALT, max_age=CONFIRM_MAX_AGE)
    except signing.SignatureExpired:
        return Confirmation(
            problem=f"This link is more than {days} days old. Set the address again "
            "on your email page to get a new one."
        )
    except signing.BadSignature:
        return Confirmation(
            problem="This link is not one this site made, or it was cut short (some mail "
            "programs break long links): open the whole link from the mail, or set the "
            "address again on your email page."
        )
    if data["u"] != user.pk:
        return Confirmation(
            problem="This link is for another account: log out, and log in as the "
            "account whose email page asked for it."
        )
    if data["e"] == user.email:
        return Confirmation(problem=f"{user.email} is already your email address.")
    if not constant_time_compare(data["s"], _state(user)):
        return Confirmation(
            problem="This link no longer works: your email address or password changed "
            "since it was sent. Set the address again on your email page to get a new one."
        )
    return Confirmation(email=data["e"])


def confirm(request: HttpRequest, email: str) -> None:
    """Make `email` (a `check`ed link's) the signed-in user's address."""
    user = request.user
    user.email = email
    user.save(update_fields=["email"])
    request.session.pop(_PENDING, None)


def stays(user) -> str:
    """What the account's address is until a link is opened."""
    return f"your address stays {user.email}" if user.email else "the account has no address yet"


def request_change(request: HttpRequest, user, new: str) -> tuple[int, str]:
    """Mail `new` a link that makes it `user`'s address, within the limits of
    link mails; the level and text of the message that says what happened.
    A mail server that fails is logged; the attempt then counts for no limit."""
    address = throttle.client_address(request)
    refusal = throttle.link_mail_refusal(address)
    if refusal:
        return messages.WARNING, f"No link was mailed to {new}: {refusal} Until then {stays(user)}."
    record = throttle.link_mail_due(address, new)
    if record is None:
        return messages.WARNING, (
            f"{new} got a mail from this site less than an hour ago, and gets one an hour "
            f"at most: open the link in that mail, or set the address again later. "
            f"Until then {stays(user)}."
        )
    token = make_token(user, new)
    link = request.build_absolute_uri(reverse("email_confirm", args=[token]))
    context = {"user": user, "email": new, "link": link, "days": CONFIRM_MAX_AGE.days}
    subject = render_to_string("registration/email_confirm_subject.txt", context).strip()
    body = render_to_string("registration/email_confirm_email.txt", context)
    try:
        send_mail(subject, body, None, [new])
    except Exception as exc:  # the SMTP server away or refusing: log, say so
        log.error("confirmation mail for user %s not sent: %s", user.pk, exc)
        record.delete()
        return messages.ERROR, (
            f"The mail to {new} could not be sent: the site's mail server failed. "
            f"Try again later; until then {stays(user)}."
        )
    request.session[_PENDING] = {"token": token, "sent_at": timezone.now().isoformat()}
    return messages.SUCCESS, (
        f"We sent a link to {new}; {stays(user)} until you open it (within "
        f"{CONFIRM_MAX_AGE.days} days, logged in as {user.get_username()})."
    )


@dataclass(frozen=True)
class Pending:
    email: str
    sent_at: datetime


def pending(request: HttpRequest) -> Pending | None:
    """The address whose link this session asked for last, while that link works."""
    asked = request.session.get(_PENDING)
    if not asked:
        return None
    found = check(asked["token"], request.user)
    if not found.email:
        del request.session[_PENDING]
        return None
    return Pending(found.email, datetime.fromisoformat(asked["sent_at"]))
