"""The ladder's fixtures (private media folder, worker processes) serve these tests too."""

from tests.ladder.conftest import media_dir  # noqa: F401 - autouse fixture
