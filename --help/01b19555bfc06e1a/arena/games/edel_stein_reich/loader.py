"""The only module of this game that reads files.

It loads the bundled house values (`data/components.json`) and, for the
`components` game option, an operator's component file (a path) or inline
JSON. Everything it returns is plain JSON that `components.parse_components`
has already accepted, so options and snapshots stay self-contained: a replay
never needs the operator's file again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arena.games.edel_stein_reich.components import Components, parse_components

DATA_FILE = Path(__file__).with_name("data") / "components.json"
#: an operator's component file is small; refuse anything larger
MAX_BYTES = 1_000_000


def _read_default() -> Components:
    return parse_components(json.loads(DATA_FILE.read_text(encoding="utf-8")))


DEFAULT_COMPONENTS: Components = _read_default()


def parse_option(raw: Any) -> dict[str, Any] | None:
    """Clean value of the `components` option.

    None (the default) means the bundled house values, and so does JSON
    `null` in a file or string. A mapping is inline
    component data; a string starting with ``{`` is inline JSON; any other
    string is a path to a JSON file. Raises ValueError naming the bad entry.
    """
    if raw is None or raw == "":
        return None
    if isinstance(raw, str):
        text = raw
        from_file = not raw.lstrip().startswith("{")
        if from_file:
            path = Path(raw)
            try:
                if path.stat().st_size > MAX_BYTES:
                    raise ValueError(f"{raw}: larger than {MAX_BYTES} bytes")
                text = path.read_text(encoding="utf-8")
            except OSError as exc:
                raise ValueError(f"cannot read {raw}: {exc.strerror or exc}") from None
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not valid JSON: {exc}") from None
        if raw is None:
            # `null`, as a ladder that plays the house values publishes it
            # (GET /api/games/<id>: ladder_options.components), means them
            return None
        if not isinstance(raw, dict):
            where = f"{path}: its JSON" if from_file else "the JSON"
            raise ValueError(f"{where} is not an object (or null)")
    if not isinstance(raw, dict):
        raise ValueError("expected a path, inline JSON or a JSON object")
    try:
        # a private JSON copy: later changes to the caller's object cannot reach a game
        raw = json.loads(json.dumps(raw))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"not JSON data: {exc}") from None
    return parse_components(raw).source
