from django.contrib import admin
from django.urls import include, path, re_path

from ladder.api import api
from ladder.api.errors import not_found as api_not_found

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    re_path(r"^api/", api_not_found),  # unknown API URLs get the API's JSON 404
    path("", include("ladder.urls")),
]
