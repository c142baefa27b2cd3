"""The server-rendered rating chart."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ladder.charts import ChartPoint, nice_step, rating_chart, rating_summary


def point(elo: float, version: int = 1, fitted: float | None = None) -> ChartPoint:
    low = high = None
    if fitted is not None:
        low, high = fitted - 50, fitted + 50
    return ChartPoint(elo, fitted, low, high, version, f"day {elo:.0f}")


def test_nice_steps() -> None:
    assert nice_step(100) == 20
    assert nice_step(1000) == 200
    assert nice_step(30) == 10
    assert nice_step(0) == 1.0


def test_chart_is_valid_svg_with_line_band_and_version_markers() -> None:
    points = [point(1500), point(1510, fitted=1505), point(1490, 2, 1500), point(1530, 2, 1510)]
    svg = rating_chart(points, "Rating of <evil> & co")
    root = ET.fromstring(svg)  # well-formed XML, title escaped
    assert root.find("{http://www.w3.org/2000/svg}title").text == "Rating of <evil> & co"
    assert len(re.findall(r'class="version"', svg)) == 2  # v1 at the start, v2 where it began
    assert ">v2</text>" in svg
    # one band for the run of fitted points (indices 1..3), none for the unfitted first point
    assert svg.count('class="band"') == 1
    elo_line = re.search(r'class="elo" points="([^"]+)"', svg).group(1).split()
    assert len(elo_line) == 4
    ys = [float(p.split(",")[1]) for p in elo_line]
    assert ys[3] < ys[1] < ys[0] < ys[2]  # higher Elo is drawn higher (smaller y)


def test_empty_and_single_point_charts() -> None:
    assert rating_chart([]) == ""
    ET.fromstring(rating_chart([point(1500)]))


def test_summary_says_in_words_what_the_chart_draws() -> None:
    points = [point(1500), point(1480, fitted=1490), point(1530, 2, 1512)]
    assert rating_summary(points) == (
        "3 rated matches (day 1500 to day 1530): Elo 1500 after the first, 1530 after the "
        "last, lowest 1480, highest 1530; leaderboard rating at the last match 1512 "
        "(95%: 1462–1562); "
        "versions v1 to v2."
    )
    assert rating_summary([point(1500)]) == (
        "1 rated match (day 1500): Elo 1500 after the first, 1500 after the last, "
        "lowest 1500, highest 1500."
    )
    assert rating_summary([]) == ""
