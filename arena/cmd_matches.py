"""`arena matches`: a bot's or a tournament's recent matches on a Gem Arena server.

Server and token: see arena/api_client.py or docs/api.md ("The command line").
A token is optional here; with one, your own bots' faults come with more detail
on the web pages and in the API.
"""

from __future__ import annotations

import argparse
import json
import sys

from arena.api_client import (
    SERVER_HELP,
    Client,
    ClientError,
    find_bot,
    load_config,
    read_time,
    write_time,
)

PAGE_MAX = 100


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = SERVER_HELP
    parser.add_argument("--bot", metavar="NAME", help="the bot's name")
    parser.add_argument("--game", help="the bot's game, if NAME is used in several")
    parser.add_argument(
        "--tournament",
        type=int,
        metavar="ID",
        help="only the matches of this server tournament (its id: its page's address, "
        "/tournaments/ID/); give --bot, --tournament or both",
    )
    parser.add_argument("--limit", type=int, default=20, metavar="N", help="how many (default 20)")
    parser.add_argument(
        "--status", choices=("queued", "running", "finished", "errored", "cancelled")
    )
    parser.add_argument("--kind", choices=("ladder", "validation", "challenge", "tournament"))
    parser.add_argument(
        "--finished-after",
        metavar="TIME",
        help="only matches finished at or after TIME: an ISO 8601 date-time "
        "(2026-11-30T13:31:49Z, 2026-11-30T14:31:49+01:00; UTC without an offset) "
        "or a date (its midnight, UTC)",
    )
    parser.add_argument(
        "--finished-before",
        metavar="TIME",
        help="only matches finished before TIME (not at it), as --finished-after; "
        "--finished-after 2026-11-30 --finished-before 2026-12-01 is that day",
    )
    parser.add_argument("--json", action="store_true", help="print the API's JSON instead")


def run(args: argparse.Namespace) -> int:
    if args.bot is None and args.tournament is None:
        print("arena matches: give --bot NAME, --tournament ID or both", file=sys.stderr)
        return 2
    if args.tournament is not None and args.tournament < 1:
        print("arena matches: --tournament must be at least 1", file=sys.stderr)
        return 2
    if args.limit < 1:
        print("arena matches: --limit must be at least 1", file=sys.stderr)
        return 2
    try:
        after, before = finished_window(args.finished_after, args.finished_before)
    except ValueError as exc:
        print(f"arena matches: {exc}", file=sys.stderr)
        return 2
    args.finished_after, args.finished_before = after, before
    bot = tournament = None
    try:
        client = Client(load_config())
        if args.bot is not None:
            bot = find_bot(client, args.bot, args.game)
            if bot is None:
                where = f" for {args.game}" if args.game else ""
                raise ClientError(f"no bot named {args.bot!r}{where} on {client.config.url}")
        if args.tournament is not None:
            # the list answers nothing for an unknown id; its detail says so
            tournament = client.get(f"/api/tournaments/{args.tournament}")
        matches = fetch(client, bot["id"] if bot else None, args)
    except ClientError as exc:
        print(f"arena matches: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(matches, indent=2))
        return 0
    window = "".join([f" from {after}" if after else "", f" before {before}" if before else ""])
    whose = [f"{bot['name']} ({bot['game']}, owner {bot['owner']})"] if bot else []
    if tournament:
        where = "in tournament " if bot else "tournament "
        whose.append(f"{where}{tournament['name']} (#{tournament['id']}, {tournament['status']})")
    print(
        f"{' '.join(whose)}: {len(matches)} matches shown"
        + (f", finished{window}" if window else "")
    )
    for match in matches:
        print(line(match, bot["id"] if bot else None))
    return 0


def finished_window(after: str | None, before: str | None) -> tuple[str | None, str | None]:
    """--finished-after and --finished-before as the API writes times (UTC,
    `Z`), checked as the server checks them; ValueError says what is wrong."""
    moments = {}
    for option, text in (("--finished-after", after), ("--finished-before", before)):
        if text is None:
            continue
        try:
            moments[option] = read_time(text)
        except OverflowError:
            raise ValueError(f"{option}: {text!r} lies outside the years 1 to 9999") from None
        except ValueError:
            raise ValueError(
                f"{option}: not an ISO 8601 date-time or date: {text!r} (e.g. "
                "2026-11-30T13:31:49Z, 2026-11-30T14:31:49+01:00 or 2026-11-30; "
                "a time without an offset is UTC)"
            ) from None
    start, end = moments.get("--finished-after"), moments.get("--finished-before")
    if start is not None and end is not None and start >= end:
        raise ValueError(
            f"--finished-before ({write_time(end)}) must be later than --finished-after "
            f"({write_time(start)}): matches are listed from --finished-after (included) "
            "up to --finished-before (left out)"
        )
    return (
        None if start is None else write_time(start),
        None if end is None else write_time(end),
    )


def fetch(client: Client, bot_id: int | None, args: argparse.Namespace) -> list[dict]:
    """The newest `--limit` matches of the bot and/or `--tournament`, walked with the API's cursor
    (`before` = the previous answer's `next`): page numbers shift under a walk
    as new matches arrive, which repeated matches (docs/api.md, "Matches").
    A server without the cursor (no `next` in its answer) is paged as before."""
    matches: list[dict] = []
    before = None
    page = 1
    while len(matches) < args.limit:
        size = min(PAGE_MAX, args.limit)
        query = {
            "bot": bot_id,
            "tournament": args.tournament,
            "status": args.status,
            "kind": args.kind,
            "finished_after": args.finished_after,
            "finished_before": args.finished_before,
            "page_size": size,
        }
        query.update({"before": before} if before is not None else {"page": page})
        batch = client.get("/api/matches", query)
        matches.extend(batch["results"])
        if "next" in batch:
            before = batch["next"]
            if before is None:
                break
        elif page * size >= batch["count"]:
            break
        page += 1
    return matches[: args.limit]


def line(match: dict, bot_id: int | None) -> str:
    when = (match["finished_at"] or match["created_at"] or "")[:16].replace("T", " ")
    seats = []
    change = ""
    for seat in match["seats"]:
        text = f"{seat['bot']['name']} v{seat['version']['number']}"
        if seat["rank"] is not None:
            text = f"#{seat['rank']} {text}"
        if seat["fault"]:
            text += f" [{seat['fault']}]"
        seats.append(text)
        if seat["bot"]["id"] == bot_id and seat["elo_change"] is not None:
            change = f"{seat['elo_change']:+.1f}"
    return (
        f"{match['id']:>7}  {match['kind']:<10} {match['status']:<9} {when:<16}  "
        f"{' · '.join(seats)}  {change}".rstrip()
    )
