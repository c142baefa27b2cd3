from django.urls import path

from ladder import views

urlpatterns = [
    path("", views.home, name="home"),
    path("status/", views.status, name="status"),
]
