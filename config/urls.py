from django.contrib import admin
from django.http import HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path, re_path

from ladder.api import api
from ladder.api.errors import not_found as api_not_found

urlpatterns = [
    # pages name the SVG icon; browsers still ask for /favicon.ico (the admin's do)
    path("favicon.ico", lambda request: HttpResponsePermanentRedirect(static("favicon.svg"))),
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    re_path(r"^api/", api_not_found),  # unknown API URLs get the API's JSON 404
    path("", include("ladder.urls")),
]

# a database outage gets a 503 that says so; any other error the 500 page
handler500 = "ladder.views.server_error"
