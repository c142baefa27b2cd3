"""Reads the component data file once, at import time.

This is the only module of the game allowed to touch the file system (the
purity test in tests/arena/test_purity.py exempts modules named `loader.py`
from the I/O rule, never from the random/clock/Django rule). Everything else
works on the plain Python values returned here.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

#: the parsed content of data/cards.json
DATA: dict[str, Any] = json.loads(
    resources.files(__package__).joinpath("data/cards.json").read_text(encoding="utf-8")
)
