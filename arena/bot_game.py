"""Which game a bot's main.py says it plays, read from its source (never run).

A bot names its game with the SDK's `run(decide, game="splendor-duel")`
(arena/sdk.py, docs/bots.md), and then refuses a match of another game. So a
main.py that names another game than the bot it is uploaded for can never
pass validation: `arena upload` and the server's upload check
(ladder/uploads.py) both refuse it at once, with `wrong_game_refusal`'s message.

Only a literal name counts: `run(decide, game=GAME)`, `run(decide,
**options)` or `game=` built at run time could name any game, and such a bot
passes as before (validation still catches it). A bot whose calls of `run`
name no game passes too.

Standard library only, and nothing from the rest of arena: the server's
check reads the source in a child process under memory limits that the arena
package does not fit in, and that child loads this file as a top-level module
(as the bot image does with arena/sdk.py).
"""

from __future__ import annotations

import ast

#: the modules a bot imports the SDK's `run` from: the bot image's name for
#: arena/sdk.py, and its own name where the arena package is importable
SDK_MODULES = frozenset({"gemarena_sdk", "arena.sdk"})


def games_named(tree: ast.AST) -> list[tuple[str, int]] | None:
    """The games that calls of the SDK's `run` in `tree` name literally, each
    with the line of its first call, in the order of the lines; None when a
    call names its game in a way only running the bot would tell."""
    run_names, sdk_names = _sdk_bindings(tree)
    named: dict[str, int] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _is_run(node.func, run_names, sdk_names)):
            continue
        for keyword in node.keywords:
            if keyword.arg is None:  # **options: it may hold game
                return None
            if keyword.arg != "game":
                continue
            value = keyword.value
            if isinstance(value, ast.Constant) and value.value is None:
                continue  # game=None: names no game
            if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
                return None
            line = named.get(value.value, node.lineno)
            named[value.value] = min(line, node.lineno)
    return sorted(named.items(), key=lambda item: item[1])


def games_named_in(source: str) -> list[tuple[str, int]] | None:
    """`games_named` of a main.py's text; None when it does not parse (the
    upload's other checks say why)."""
    try:
        tree = ast.parse(source, "main.py")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return games_named(tree)


def wrong_game_refusal(
    named: list[tuple[str, int]] | None, game: str, shown: str = "main.py"
) -> str:
    """Why a main.py that names `named` (`games_named`) cannot be a bot of
    `game`; "" when it can: it names `game`, no game, or none literally."""
    if not named or game in {name for name, _ in named}:
        return ""
    written_for, line = named[0]
    return (
        f"{shown} is written for {written_for} (run(..., game={written_for!r}) on line "
        f"{line}), but this is a bot for {game}: the bot would refuse every match; "
        f"upload it as a bot for {written_for}, or change game= if it really plays {game}"
    )


def _sdk_bindings(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The names the file binds to the SDK's `run` (`from gemarena_sdk import
    run as go`) and to the SDK module itself (`import gemarena_sdk as sdk`)."""
    run_names: set[str] = set()
    sdk_names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in SDK_MODULES:
            run_names.update(a.asname or a.name for a in node.names if a.name == "run")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "arena":
            sdk_names.update(a.asname or a.name for a in node.names if a.name == "sdk")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in SDK_MODULES:
                    # `import arena.sdk` binds `arena`: its calls read `arena.sdk.run`
                    sdk_names.add(alias.asname or alias.name)
    return run_names, sdk_names


def _is_run(func: ast.expr, run_names: set[str], sdk_names: set[str]) -> bool:
    if isinstance(func, ast.Name):
        return func.id in run_names
    return (
        isinstance(func, ast.Attribute) and func.attr == "run" and _dotted(func.value) in sdk_names
    )


def _dotted(node: ast.expr) -> str:
    """`a.b.c` of a chain of attributes of a name; "" for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""
