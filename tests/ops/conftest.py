"""The ladder's fixtures (private media folder) and named worker processes."""

from __future__ import annotations

from tests.ladder.conftest import media_dir, named_workers  # noqa: F401 - autouse fixture, helper
