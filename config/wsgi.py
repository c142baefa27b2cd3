import os
import sys

from django.core.wsgi import get_wsgi_application

from config.env import SettingError

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
try:
    application = get_wsgi_application()
except SettingError as exc:
    # gunicorn would log the import traceback and stop; say what is wrong instead.
    # Exit status 4 is gunicorn's "App failed to load": it halts, not respawns.
    sys.stderr.write(f"Gem Arena cannot start: {exc} (docs/operations.md, Settings)\n")
    raise SystemExit(4) from None
