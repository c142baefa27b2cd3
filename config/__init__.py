"""Django project configuration; importing it makes the Celery app available."""

from config.celery import app as celery_app

__all__ = ["celery_app"]
