"""Gem Arena's pure side: game engines, the bot protocol, the match runner.

Never imports Django. The ladder uses only the names exported here.
"""

from arena.api_client import read_time, write_time
from arena.bot_game import wrong_game_refusal
from arena.engine import (
    EngineError,
    GameDef,
    GameState,
    IllegalAction,
    MalformedAction,
    OptionError,
    Outcome,
    option_value,
)
from arena.protocol import FaultKind
from arena.registry import all_games, get_game
from arena.replay import (
    ReplayError,
    replay_from_bytes,
    replay_to_bytes,
    secret_description,
    spectator_frames,
    verify_replay,
)
from arena.runner import play_match
from arena.runner_bots import BotNotFound, builtin_bot_dir, no_main_py_hint, starter_files
from arena.runner_types import (
    BotSpec,
    Fault,
    MatchRequest,
    MatchResult,
    SeatTiming,
    SystemFault,
    TimeControl,
)
from arena.sandboxes import (
    SandboxStatus,
    reap_sandboxes,
    remove_match_sandboxes,
    sandbox_self_test,
    sandbox_status,
)
from arena.tournament import (
    ROW_FIGURES,
    Standing,
    count_game,
    fit_elo,
    pair_results,
    ranked,
    schedule,
    standings_rows,
    table_lines,
    wilson_interval,
)

__all__ = [
    "BotNotFound",
    "BotSpec",
    "Fault",
    "FaultKind",
    "MatchRequest",
    "MatchResult",
    "ReplayError",
    "SeatTiming",
    "SystemFault",
    "TimeControl",
    "builtin_bot_dir",
    "no_main_py_hint",
    "starter_files",
    "play_match",
    "read_time",
    "reap_sandboxes",
    "replay_from_bytes",
    "replay_to_bytes",
    "secret_description",
    "spectator_frames",
    "verify_replay",
    "write_time",
    "EngineError",
    "GameDef",
    "GameState",
    "IllegalAction",
    "MalformedAction",
    "OptionError",
    "Outcome",
    "SandboxStatus",
    "all_games",
    "get_game",
    "option_value",
    "remove_match_sandboxes",
    "sandbox_self_test",
    "sandbox_status",
    "Standing",
    "count_game",
    "fit_elo",
    "pair_results",
    "ranked",
    "schedule",
    "ROW_FIGURES",
    "standings_rows",
    "table_lines",
    "wilson_interval",
    "wrong_game_refusal",
]
