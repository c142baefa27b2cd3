"""The leaderboard's sorted column says which way its values run."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.web.conftest import make_bot

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "sort, column, direction, arrow",
    [
        ("rank", "#", "ascending", "▲"),  # 1, 2, 3 … down the column
        ("-rank", "#", "descending", "▼"),
        ("bot", "bot", "ascending", "▲"),  # A → Z
        ("-bot", "bot", "descending", "▼"),
        ("owner", "owner", "ascending", "▲"),
        ("rating", "rating", "descending", "▼"),  # best first
        ("-games", "games", "ascending", "▲"),
    ],
)
def test_the_sorted_column_announces_its_direction(
    client: Client, alice, sort, column, direction, arrow
) -> None:
    make_bot(alice, "alice-a")
    html = client.get(f"/games/splendor-duel/?sort={sort}").content.decode()
    headers = re.findall(r'<th [^>]*aria-sort="(\w+)"[^>]*><a [^>]*>([^<]*)</a>', html)
    assert headers == [(direction, f"{column} {arrow}")]
