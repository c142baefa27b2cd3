"""The fit's first-move term belongs to the bot that moved first.

Splendor Duel's seed draws who moves first (`first_seat: random`), so seat 0
moves first in about half the ladder's matches: a term credited to seat 0
measured nothing. Each finished match stores its first mover and the refit
credits the term to it.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from arena import get_game
from ladder.bots import install_builtin
from ladder.leaderboard import rated_results, refit
from ladder.matches import create_match
from ladder.models import GameFit, Match, MatchSeat
from ladder.results import apply_ratings
from tests.ladder.conftest import migrating

GAME = "splendor-duel"


def finish(match: Match, ranks: tuple[int, int], first_mover: int | None) -> None:
    """Record `ranks` by seat as a worker does, with `first_mover` stored."""
    seats = list(match.seats.select_related("version").order_by("seat"))
    for seat, rank in zip(seats, ranks, strict=True):
        seat.rank = rank
    match.status = Match.Status.FINISHED
    match.finished_at = timezone.now()
    match.first_mover = first_mover
    apply_ratings(match, seats)
    MatchSeat.objects.bulk_update(seats, ["rank", "elo_before", "elo_change"])
    match.save()


@pytest.mark.django_db
def test_the_refit_credits_the_first_move_term_to_the_bot_that_moved_first() -> None:
    a = install_builtin(GAME, "random", bot_name="fm-a").active_version
    b = install_builtin(GAME, "random", bot_name="fm-b").active_version
    # 48 mirrored pairs; the first mover sits in seat 0 in half of them and
    # wins 3 games of 4, so seat 0 wins exactly half of all games
    for pair in range(48):
        mover = pair % 2
        mover_wins = pair // 2 % 4 != 3
        for lineup in ((a, b), (b, a)):
            match = create_match(GAME, list(lineup), seed=pair)
            winner = mover if mover_wins else 1 - mover
            finish(match, (1, 2) if winner == 0 else (2, 1), mover)
    assert refit(GAME) == 96
    fit = GameFit.objects.get(game=GAME)
    # 3 wins in 4 is 191 Elo; the N(0, 200²) prior pulls it in a little
    assert 150 < fit.first_seat_advantage < 191, fit.first_seat_advantage
    assert fit.first_seat_advantage - fit.first_seat_advantage_half_width > 0
    # what the fit was given: the mover first, the seat order otherwise
    _, by_seat = rated_results(GAME)
    _, by_turn = rated_results(GAME, mover_first=True)
    assert [r.ranks[0] for r in by_turn].count(1) == 72
    assert [r.ranks[0] for r in by_seat].count(1) == 48
    assert by_turn[0] == by_seat[0] and by_turn[2] != by_seat[2]
    assert sorted(by_turn[2].bot_ids) == sorted(by_seat[2].bot_ids)
    # each bot moved first equally often: the term favours neither
    ratings = sorted(a.bot.rating.fitted for a in (a, b))
    assert ratings[1] - ratings[0] < 1
    page = Client().get(f"/games/{GAME}/").content.decode()
    assert f"Moving first is worth +{fit.first_seat_advantage:.0f} Elo ±" in page
    # and each match page says who it was
    shown = Match.objects.filter(seed__in=(0, 1), seats__seat=0, seats__version=a)
    assert sorted(m.first_mover for m in shown) == [0, 1]
    for match in shown:
        rows = Client().get(f"/matches/{match.pk}/").content.decode().split("<tr")
        marked = [i for i, row in enumerate(rows) if "moved first</span>" in row]
        assert len(marked) == 1 and f'"num">{match.first_mover}</td>' in rows[marked[0]]


@pytest.mark.django_db
def test_a_match_with_no_single_first_mover_keeps_seat_order() -> None:
    a = install_builtin(GAME, "random", bot_name="fm-c").active_version
    b = install_builtin(GAME, "random", bot_name="fm-d").active_version
    match = create_match(GAME, [a, b], seed=1)
    finish(match, (2, 1), None)
    assert "moved first" not in Client().get(f"/matches/{match.pk}/").content.decode()
    _, (result,) = rated_results(GAME, mover_first=True)
    assert result.bot_ids == (a.bot_id, b.bot_id) and result.ranks == (2, 1)
    assert get_game("edel-stein-reich").first_to_act(4, 1) is None  # bids at once


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_in_the_first_mover_of_finished_matches() -> None:
    before = [("ladder", "0018_mail_settings")]
    after = [("ladder", "0019_match_first_mover")]
    duel = get_game(GAME)
    with migrating() as to:
        apps = to(before)
        OldMatch = apps.get_model("ladder", "Match")  # noqa: N806
        common = {"game": GAME, "seat_count": 2, "rules_version": duel.rules_version}
        finished = [
            OldMatch.objects.create(seed=seed, status="finished", **common) for seed in range(1, 9)
        ]
        fixed = OldMatch.objects.create(
            seed=1, options={"first_seat": 1}, status="finished", **common
        )
        queued = OldMatch.objects.create(seed=1, status="queued", **common)
        odd = OldMatch.objects.create(
            seed=1, options={"no_such_option": 1}, status="finished", **common
        )
        NewMatch = to(after).get_model("ladder", "Match")  # noqa: N806
        movers = dict(NewMatch.objects.values_list("pk", "first_mover"))
    expected = [duel.first_to_act(2, seed) for seed in range(1, 9)]
    assert [movers[m.pk] for m in finished] == expected
    assert set(expected) == {0, 1}
    assert movers[fixed.pk] == 1
    assert movers[queued.pk] is None  # set when its result is recorded
    assert movers[odd.pk] is None  # options this version no longer knows
