from django.urls import path

from ladder import views, views_replay

urlpatterns = [
    path("", views.home, name="home"),
    path("status/", views.status, name="status"),
    path("matches/<int:match_id>/frames.json", views_replay.frames, name="match_frames_json"),
    path("matches/<int:match_id>/live.json", views_replay.live, name="match_live_json"),
]
