"""The Celery application. Broker and schedule come from Django settings;
the filesystem broker is ours (config/broker.py)."""

import os

from celery import Celery
from kombu.transport import TRANSPORT_ALIASES

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# the embedded default's broker takes the oldest message first (config/broker.py)
TRANSPORT_ALIASES["filesystem"] = "config.broker:Transport"

app = Celery("gemarena")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def _prepare_local_broker() -> None:
    """The filesystem transport needs its folders before the first message."""
    from django.conf import settings

    options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    for key in ("data_folder_in", "data_folder_out", "control_folder"):
        if key in options:
            os.makedirs(options[key], exist_ok=True)


@app.on_after_configure.connect
def _on_configure(sender, **kwargs) -> None:
    _prepare_local_broker()
