"""Numbers for the dashboard's server-side SVG charts (drawn by templates/guanli/_chart.html).

Pure: times (seconds since the epoch) are bucketed by day in the site's zone, so a comment at
23:30 UTC on 1 May counts on 2 May for a site in Asia/Shanghai (C54).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo


@dataclass(frozen=True)
class Bar:
    day: date
    count: int
    x: float  # SVG user units
    y: float
    width: float
    height: float


def per_day(times: Iterable[float], tz: tzinfo, days: int, now: float) -> list[tuple[date, int]]:
    """Counts per site-zone day for the `days` days ending today (`now`), oldest first."""
    today = datetime.fromtimestamp(now, tz).date()
    counts = Counter(datetime.fromtimestamp(t, tz).date() for t in times)
    return [
        (d, counts.get(d, 0)) for d in (today - timedelta(days=n) for n in range(days - 1, -1, -1))
    ]


def bars(series: list[tuple[date, int]], width: float = 600, height: float = 120) -> list[Bar]:
    """The bars of `series` in a `width` x `height` box (the tallest bar fills it)."""
    top = max((c for _, c in series), default=0) or 1
    step = width / max(1, len(series))
    out = []
    for i, (day, count) in enumerate(series):
        h = height * count / top
        out.append(Bar(day, count, i * step + step * 0.1, height - h, step * 0.8, h))
    return out
