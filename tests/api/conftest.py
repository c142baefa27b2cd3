"""The ladder's fixtures (media folder, alice, bob) for the API tests."""

from tests.ladder.conftest import alice, bob, media_dir  # noqa: F401
