"""Create the first staff account if there is none, and say how to log in."""

from __future__ import annotations

import os
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = (
        "Create the superuser 'admin' when no superuser exists. The password comes from "
        "GEMARENA_ADMIN_PASSWORD, or is generated and written to admin-password.txt in "
        "GEMARENA_VAR_DIR (default var/)."
    )

    def handle(self, *args, **options) -> None:
        User = get_user_model()
        if User.objects.filter(is_superuser=True).exists():
            self.stdout.write("A superuser exists already; nothing to do.")
            return
        password = os.environ.get("GEMARENA_ADMIN_PASSWORD") or secrets.token_urlsafe(12)
        User.objects.create_superuser("admin", "admin@localhost", password)
        if os.environ.get("GEMARENA_ADMIN_PASSWORD"):
            self.stdout.write("Created superuser 'admin' with GEMARENA_ADMIN_PASSWORD.")
            return
        path = settings.VAR_DIR / "admin-password.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(password + "\n")
        path.chmod(0o600)
        self.stdout.write(f"Created superuser 'admin'; its password is in {path}")
