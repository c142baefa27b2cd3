"""Server-rendered SVG charts (no JavaScript, no library).

`rating_chart` draws one bot's incremental Elo after each rated match as a
line, the leaderboard's fitted rating with its 95 % interval as a band
behind it, and a marker wherever a new version started playing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape


@dataclass(frozen=True)
class ChartPoint:
    elo: float
    fitted: float | None
    low: float | None
    high: float | None
    version: int
    label: str  # shown in the point's tooltip, e.g. the date


WIDTH, HEIGHT = 720, 260
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 48, 12, 14, 26


def nice_step(span: float, target_lines: int = 5) -> float:
    """A round grid step (1, 2 or 5 × 10^k) giving about `target_lines` lines."""
    if span <= 0:
        return 1.0
    raw = span / target_lines
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def _fmt(value: float) -> str:
    return f"{value:.1f}"


def rating_chart(points: Sequence[ChartPoint], title: str = "Rating history") -> str:
    """The chart as an <svg> element (a string of trusted markup)."""
    if not points:
        return ""
    values = [p.elo for p in points]
    values += [v for p in points for v in (p.low, p.high) if v is not None]
    lo, hi = min(values), max(values)
    if hi - lo < 20:
        lo, hi = lo - 10, hi + 10
    step = nice_step(hi - lo)
    lo = math.floor(lo / step) * step
    hi = math.ceil(hi / step) * step
    plot_w = WIDTH - PAD_LEFT - PAD_RIGHT
    plot_h = HEIGHT - PAD_TOP - PAD_BOTTOM
    n = len(points)

    def x(i: int) -> float:
        return PAD_LEFT + (plot_w * i / (n - 1) if n > 1 else plot_w / 2)

    def y(v: float) -> float:
        return PAD_TOP + plot_h * (hi - v) / (hi - lo)

    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
    ]
    # grid and y labels
    lines = round((hi - lo) / step)
    for k in range(lines + 1):
        v = lo + k * step
        yy = _fmt(y(v))
        parts.append(
            f'<line class="grid" x1="{PAD_LEFT}" x2="{WIDTH - PAD_RIGHT}" y1="{yy}" y2="{yy}"/>'
        )
        parts.append(f'<text class="axis" x="{PAD_LEFT - 6}" y="{yy}" dy="4">{v:.0f}</text>')
    # the fitted band: one polygon per run of points that have a fit
    runs: list[list[int]] = []
    for i, p in enumerate(points):
        if p.low is None or p.high is None:
            continue
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    for run in runs:
        upper = [f"{_fmt(x(i))},{_fmt(y(points[i].high))}" for i in run]
        lower = [f"{_fmt(x(i))},{_fmt(y(points[i].low))}" for i in reversed(run)]
        parts.append(f'<polygon class="band" points="{" ".join(upper + lower)}"/>')
        fitted = [f"{_fmt(x(i))},{_fmt(y(points[i].fitted))}" for i in run]
        parts.append(f'<polyline class="fitted" points="{" ".join(fitted)}"/>')
    # version markers
    for i, p in enumerate(points):
        if i == 0 or p.version != points[i - 1].version:
            xx = _fmt(x(i))
            parts.append(
                f'<line class="version" x1="{xx}" x2="{xx}" y1="{PAD_TOP}" '
                f'y2="{HEIGHT - PAD_BOTTOM}"/>'
            )
            parts.append(
                f'<text class="version-label" x="{xx}" y="{PAD_TOP - 3}" dx="3">v{p.version}</text>'
            )
    # the incremental Elo line and its points (with tooltips)
    line = " ".join(f"{_fmt(x(i))},{_fmt(y(p.elo))}" for i, p in enumerate(points))
    parts.append(f'<polyline class="elo" points="{line}"/>')
    if n <= 120:
        for i, p in enumerate(points):
            parts.append(
                f'<circle class="dot" cx="{_fmt(x(i))}" cy="{_fmt(y(p.elo))}" r="2.5">'
                f"<title>{escape(p.label)}: Elo {p.elo:.0f} (v{p.version})</title></circle>"
            )
    base = HEIGHT - 8
    parts.append(
        f'<text class="axis start" x="{PAD_LEFT}" y="{base}">{escape(points[0].label)}</text>'
    )
    parts.append(
        f'<text class="axis end" x="{WIDTH - PAD_RIGHT}" y="{base}">{escape(points[-1].label)}</text>'
    )
    parts.append("</svg>")
    return "\n".join(parts)


def rating_summary(points: Sequence[ChartPoint]) -> str:
    """What the chart shows, in one sentence: for screen readers (the chart is
    an image to them) and for whoever cannot hover its points."""
    if not points:
        return ""
    first, last = points[0], points[-1]
    elos = [p.elo for p in points]
    matches = f"{len(points)} rated match{'es' if len(points) != 1 else ''}"
    span = first.label if len(points) == 1 else f"{first.label} to {last.label}"
    text = (
        f"{matches} ({span}): Elo {first.elo:.0f} after the first, {last.elo:.0f} after the "
        f"last, lowest {min(elos):.0f}, highest {max(elos):.0f}"
    )
    if last.fitted is not None and last.low is not None and last.high is not None:
        # the fit as it stood at that match: the rating card above shows today's
        text += (
            f"; leaderboard rating at the last match {last.fitted:.0f} "
            f"(95%: {last.low:.0f}–{last.high:.0f})"
        )
    versions = sorted({p.version for p in points})
    if len(versions) > 1:
        text += f"; versions v{versions[0]} to v{versions[-1]}"
    return text + "."
