from django.contrib.auth import views as auth_views
from django.urls import path, register_converter

from ladder import (
    health,
    views,
    views_account,
    views_docs,
    views_replay,
    views_tournament,
    views_upload,
)
from ladder.views_challenge import challenge, my_challenges


class RowId:
    """A row id: at most 18 digits, so it fits the database's 64-bit integers.
    A longer number is no page (404) rather than an overflow in the query."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(RowId, "id")

urlpatterns = [
    path("", views.home, name="home"),
    path("status/", views.status, name="status"),
    path("healthz", health.healthz, name="healthz"),
    path("queue/", views.queue, name="queue"),
    path("games/<slug:game>/", views.leaderboard, name="leaderboard"),
    path("bots/<id:bot_id>/", views.bot_detail, name="bot"),
    path("bots/<id:bot_id>/versions/<id:number>/", views_upload.version_detail, name="version"),
    path(
        "bots/<id:bot_id>/versions/<id:number>/status.json",
        views_upload.version_status,
        name="version_status",
    ),
    path(
        "bots/<id:bot_id>/versions/<id:number>/source",
        views.version_source,
        name="version_source",
    ),
    path("bots/<id:bot_id>/ladder/", views_account.bot_ladder, name="bot_ladder"),
    path("upload/", views_upload.upload, name="upload"),
    # challenges
    path("bots/<id:bot_id>/challenge/", challenge, name="challenge"),
    path("accounts/challenges/", my_challenges, name="my_challenges"),
    path("matches/<id:match_id>/", views.match_detail, name="match"),
    path("matches/<id:match_id>/replay.json.gz", views.match_replay, name="match_replay"),
    path("matches/<id:match_id>/frames.json", views_replay.frames, name="match_frames_json"),
    path("matches/<id:match_id>/live.json", views_replay.live, name="match_live_json"),
    # tournaments
    path("tournaments/", views_tournament.tournaments, name="tournaments"),
    path(
        "tournaments/<id:tournament_id>/",
        views_tournament.tournament_detail,
        name="tournament",
    ),
    # accounts
    path("accounts/signup/", views_account.signup, name="signup"),
    path(
        "accounts/login/",
        views_account.LoginView.as_view(),
        name="login",
    ),
    path("accounts/logout/", views_account.LogoutView.as_view(next_page="home"), name="logout"),
    path("accounts/password/", views_account.PasswordChangeView.as_view(), name="password_change"),
    path(
        "accounts/password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path(
        "accounts/password/reset/",
        views_account.PasswordResetView.as_view(),
        name="password_reset",
    ),
    path(
        "accounts/password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        views_account.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("accounts/email/", views_account.email, name="email"),
    path(
        "accounts/email/confirm/<str:token>/",
        views_account.email_confirm,
        name="email_confirm",
    ),
    path("accounts/", views_account.account, name="account"),
    path("accounts/tokens/", views_account.tokens, name="tokens"),
    path(
        "accounts/tokens/<id:token_id>/revoke/",
        views_account.token_revoke,
        name="token_revoke",
    ),
    # documentation
    path("docs/", views_docs.index, name="docs"),
    path("docs/getting-started/", views_docs.getting_started, name="getting_started"),
    path("docs/faq/", views_docs.faq, name="faq"),
    path("docs/games/<slug:game>/", views_docs.game_reference, name="game_docs"),
    path("docs/starter/<slug:game>.zip", views_docs.starter_kit, name="starter_kit"),
    path("docs/gem-arena.tar.gz", views_docs.runner, name="runner"),
    path("docs/<slug:page>/", views_docs.doc_page, name="doc_page"),
]
