from django.conf import settings


def site(request):
    return {"PRODUCTION": settings.PRODUCTION}
