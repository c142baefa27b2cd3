"""The tournaments of `ladder.bench`: a big finished one and a running one,
filled with COPY as `Filler` fills the ladder (their bots are its first 20
Splendor Duel bots)."""

from __future__ import annotations

import time

from ladder.bench_fill import Filler, copy_matches

#: Splendor Duel round robins of 20 bots: (name, games a table, matches
#: played of its 190 * games, None for all); the rest of a running one
#: waits queued, 4 of them being played
TOURNAMENTS = (("bench finished cup", 20, None), ("bench running cup", 20, 2000))


def add_tournaments(filler: Filler) -> None:
    """`TOURNAMENTS`, unless the database has them: their entries, and
    their matches (unrated, ranked by the bots' strengths) with COPY."""
    from django.db import transaction
    from django.utils import timezone

    from arena import schedule
    from ladder.models import Tournament, TournamentEntry

    if Tournament.objects.filter(name=TOURNAMENTS[0][0]).exists():
        return
    pool = filler.bots["splendor-duel"][:20]
    stamp = time.strftime("%Y-%m-%d %H:%M:%S+00", time.gmtime(filler.now - 3600))
    replays = filler.replays["splendor-duel"]
    for name, games, played in TOURNAMENTS:
        plan = schedule(len(pool), 2, games, seed=1)
        played = len(plan) if played is None else played
        with transaction.atomic():
            tournament = Tournament.objects.create(
                name=name,
                game="splendor-duel",
                players=2,
                games=games,
                seed=1,
                status="finished" if played == len(plan) else "running",
                finished_at=timezone.now() if played == len(plan) else None,
            )
            TournamentEntry.objects.bulk_create(
                TournamentEntry(tournament=tournament, position=i, version_id=v, label=f"b{b}")
                for i, (b, v) in enumerate(pool)
            )
            match_rows, seat_rows = [], []
            for i, pairing in enumerate(plan):
                mid = filler.next_match
                filler.next_match += 1
                status = "finished" if i < played else "running" if i < played + 4 else "queued"
                done = status == "finished"
                match_rows.append(
                    (
                        mid,
                        "splendor-duel",
                        2,
                        pairing.seed,
                        "{}",
                        "1.0",
                        "tournament",
                        status,
                        False,
                        int(status != "queued"),
                        stamp,
                        stamp if done else None,
                        stamp if done else None,
                        filler.rng.choice(replays) if done else "",
                        "the game ended" if done else "",
                        "",
                        150 if done else 0,
                        "bench",
                        tournament.pk,
                    )
                )
                lineup = [pool[b] for b in pairing.seats]
                strength = [filler.strength[b] + filler.rng.gauss(0, 200) for b, _ in lineup]
                for seat, (_, version_id) in enumerate(lineup):
                    rank = 1 + sum(s > strength[seat] for s in strength) if done else None
                    seat_rows.append(
                        (
                            mid,
                            seat,
                            version_id,
                            rank,
                            None if rank is None else 2.0 - rank,
                            "",
                            "",
                            0 if rank is None else 500,
                            "",
                            None,
                            None,
                        )
                    )
            copy_matches(match_rows, seat_rows, ["tournament_id"])
