"""The beat's leaderboard refits are spaced by their own cost: a fit reads
every rated match, so on a ladder that has run for days each one takes
seconds, and refitting every 30 s would take a core (docs/scale.md)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from ladder.models import GameFit
from ladder.tasks import REFIT_SPACING, refit_ratings

GAME = "splendor-duel"


@pytest.mark.django_db
def test_a_refit_waits_for_spacing_times_the_last_fits_duration() -> None:
    # stale: the stored fit counted 7 matches, the database holds none
    fitted_at = timezone.now()
    GameFit.objects.create(game=GAME, matches=7, seconds=100.0, fitted_at=fitted_at)
    assert GAME not in refit_ratings()
    assert GameFit.objects.get(game=GAME).matches == 7

    GameFit.objects.filter(game=GAME).update(
        fitted_at=fitted_at - timedelta(seconds=REFIT_SPACING * 100.0 + 1)
    )
    assert refit_ratings()[GAME] == 0
    fit = GameFit.objects.get(game=GAME)
    assert fit.matches == 0
    assert fit.seconds is not None and fit.seconds >= 0  # the next refit is spaced by it


@pytest.mark.django_db
def test_a_fit_without_a_recorded_duration_is_refitted_at_once() -> None:
    """Fits stored before durations were recorded do not hold the refit back."""
    GameFit.objects.create(game=GAME, matches=7, fitted_at=timezone.now())
    assert refit_ratings()[GAME] == 0
