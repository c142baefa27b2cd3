"""Rating and pairing maths of the ladder: pure Python + numpy, no Django.

- `elo`: classic incremental Elo, shown after every match (`apply_elo`, `replay_elo`).
- `fit`: batch maximum-likelihood Elo (Bradley–Terry / Plackett–Luce) that
  orders the leaderboard, with 95 % intervals (`fit_ratings`).
- `pairing`: which bots play next (`plan_matches`).
- `simulate`: `python -m ladder.ratings.simulate`, accuracy on simulated ladders.

See docs/ratings.md.
"""

from .elo import ELO, EloConfig, EloRating, EloUpdate, apply_elo, elo_changes, k_factor, replay_elo
from .fit import FIT, BotFit, Fit, FitConfig, fit_ratings
from .pairing import PAIRING, PairingBot, PairingConfig, PlannedMatch, pair_games_of, plan_matches
from .results import BotId, MatchResult, expected_score

__all__ = [
    "ELO",
    "FIT",
    "PAIRING",
    "BotFit",
    "BotId",
    "EloConfig",
    "EloRating",
    "EloUpdate",
    "Fit",
    "FitConfig",
    "MatchResult",
    "PairingBot",
    "PairingConfig",
    "PlannedMatch",
    "apply_elo",
    "elo_changes",
    "expected_score",
    "fit_ratings",
    "k_factor",
    "pair_games_of",
    "plan_matches",
    "replay_elo",
]
