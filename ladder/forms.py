"""Forms of the pages: upload, sign-up, password and email, API tokens."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import forms as auth_forms
from django.contrib.auth.forms import UserCreationForm
from django.db import IntegrityError, transaction

from arena import all_games
from ladder import email_change, throttle
from ladder.bots import BOT_NAME_PATTERN, BOT_NAME_RULE
from ladder.models import Bot, Counter, MailSettings

#: the Counter row whose lock serialises sign-ups (SignupForm.save_unique)
SIGNUP_LOCK = "signup"


def game_choices() -> list[tuple[str, str]]:
    return [(g.id, g.name) for g in all_games()]


class UploadForm(forms.Form):
    """A new version of one of the user's bots, or a new bot with its first version."""

    bot = forms.ModelChoiceField(
        queryset=Bot.objects.none(),
        required=False,
        empty_label="— a new bot —",
        label="One of your bots",
    )
    game = forms.ChoiceField(choices=(), required=False)
    name = forms.RegexField(
        BOT_NAME_PATTERN,
        max_length=40,
        required=False,
        help_text="Letters, digits, - and _, starting with a letter or digit; unique within "
        "the game, look-alikes too (capitals, 0 for o, 1 or i for l, rn for m, a - at "
        "the end, ...).",
        error_messages={"invalid": BOT_NAME_RULE[0].upper() + BOT_NAME_RULE[1:] + "."},
    )
    file = forms.FileField(
        label="Bot file",
        help_text="A single .py file, or a .zip with main.py at its root (or in the one "
        "folder it holds).",
    )

    def __init__(self, user, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["bot"].queryset = Bot.objects.filter(owner=user).order_by("game", "name")
        games = dict(game_choices())  # "alpha (Splendor Duel)", as the other pages name games
        self.fields["bot"].label_from_instance = lambda bot: f"{bot.name} ({games[bot.game]})"
        self.fields["game"].choices = [("", "— choose —"), *game_choices()]

    def clean_file(self):
        upload = self.cleaned_data["file"]
        limit = settings.BOT_UPLOAD_MAX_BYTES
        if upload.size > limit:
            raise forms.ValidationError(
                f"the file is {upload.size:,} bytes; the limit is {limit:,} bytes"
            )
        return upload

    def clean(self):
        data = super().clean()
        if data.get("bot") is None:
            if not data.get("game"):
                self.add_error("game", "choose the game of the new bot")
            if not data.get("name") and "name" not in self.errors:  # one message per field
                self.add_error("name", "name the new bot (or choose one of your bots)")
        return data


#: what an account's email address is for, on the sign-up and email forms
EMAIL_HELP = (
    "Optional; only the site's administrators see it. It lets you set a new "
    "password if you forget yours. A new address is used once you open the "
    "link mailed to it."
)


class SignupForm(UserCreationForm):
    """A new account. Its email address, if given, is only mailed a link
    (`ladder.email_change`, once the account is made); a site that sends no
    mail cannot confirm one and does not ask for it."""

    email = forms.EmailField(required=False, help_text=EMAIL_HELP)

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")  # the email for the password validators' sake

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if not settings.SENDS_EMAIL:
            del self.fields["email"]

    def save_unique(self, address: str):
        """Store the new user, or None with an error added: the username's when
        an account of that name, in any capitals, was made since `is_valid`
        looked; a THROTTLED one when `address` (the client's) has made its
        hourly share of accounts (`ladder.throttle`). Sign-ups are serialised
        by a row lock so two sent at the same moment (``Alice`` and ``alice``)
        cannot both pass the checks; the password is hashed before the lock
        is taken, so the lock is held only for the insert."""
        user = self.save(commit=False)  # hashes the password
        user.email = ""  # until its owner opens the link mailed to it
        User = type(user)
        taken = user.unique_error_message(User, ["username"])
        try:
            with transaction.atomic():
                Counter.lock(SIGNUP_LOCK)
                refusal = throttle.signup_refusal(address)
                if refusal:
                    self.add_error(None, forms.ValidationError(refusal, code=throttle.THROTTLED))
                    return None
                if User.objects.filter(username__iexact=user.username).exists():
                    self.add_error("username", taken)
                    return None
                user.save()
                throttle.signed_up(address)
        except IntegrityError:  # made elsewhere (the admin, a command) meanwhile
            self.add_error("username", taken)
            return None
        return user


class PasswordChangeForm(auth_forms.PasswordChangeForm):
    """Django's, with the current password checked as a sign-in (`ladder.throttle`)."""

    def __init__(self, user, *args, request=None, **kwargs):
        super().__init__(user, *args, **kwargs)
        self.request = request

    def clean_old_password(self):
        raw = self.cleaned_data["old_password"]
        throttle.check_current_password(self.user, raw, self.request)
        return raw


class EmailForm(forms.Form):
    """An account's email address, set or changed (by a link mailed to the new
    one, `ladder.email_change`) or removed (at once), and whether to mail it
    the news of the user's bots (`ladder.notify`); with the current password."""

    email = forms.EmailField(required=False, label="Email address", help_text=EMAIL_HELP)
    bot_news = forms.BooleanField(
        required=False,
        label="Mail me when a bot of mine is paused after faults or an upload of mine is rejected",
    )
    password = forms.CharField(
        label="Your password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        help_text="Asked again so that nobody at an open session can take the account.",
    )

    def __init__(self, user, *args, request=None, **kwargs):
        wants = MailSettings.objects.filter(user=user, bot_news=True).exists()
        kwargs.setdefault("initial", {"email": user.email, "bot_news": wants})
        super().__init__(*args, **kwargs)
        self.user = user
        self.request = request

    def changes_address(self) -> bool:
        """Whether the form asks for a new address (one to confirm), not the same or none."""
        email = self.cleaned_data.get("email")
        return bool(email) and email != self.user.email

    def clean_email(self):
        email = self.cleaned_data["email"]
        if email and email != self.user.email and not settings.SENDS_EMAIL:
            raise forms.ValidationError(
                "this site sends no mail, so a new address cannot be confirmed; ask its "
                "operators, or leave the field empty to remove the address"
            )
        return email

    def clean_password(self):
        raw = self.cleaned_data["password"]
        throttle.check_current_password(self.user, raw, self.request)
        return raw

    def clean(self):
        data = super().clean()
        if data.get("bot_news") and not data.get("email") and "email" not in self.errors:
            self.add_error("bot_news", "give an email address to be mailed at")
        if not self.errors and self.changes_address():
            refusal = throttle.link_mail_refusal(throttle.client_address(self.request))
            if refusal:
                self.add_error(None, forms.ValidationError(refusal, code=throttle.THROTTLED))
        return data

    def save(self) -> tuple[int, str]:
        """Store the choice, and remove the address or mail a link to the new one;
        the level and text of what the account page says about them."""
        email, news = self.cleaned_data["email"], self.cleaned_data["bot_news"]
        with transaction.atomic():
            MailSettings.objects.update_or_create(user=self.user, defaults={"bot_news": news})
            if not email:
                self.user.email = ""
                self.user.save(update_fields=["email"])
                return messages.SUCCESS, (
                    "Your email address is removed: a forgotten password can no longer be "
                    "reset by mail."
                )
        if not self.changes_address():
            then = " You will be mailed when a bot of yours is paused or an upload rejected."
            return messages.SUCCESS, (
                f"{email} is your email address already: nothing was mailed.{then if news else ''}"
            )
        level, text = email_change.request_change(self.request, self.user, email)
        if news:
            text += (
                f" Bot news goes to {self.user.email} until the new address is confirmed."
                if self.user.email
                else " Bot news will go to the new address once it is confirmed."
            )
        return level, text


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=60, help_text="What the token is for, e.g. “laptop CLI” or “CI upload”."
    )
