"""The comment import cases (WordPress, Disqus) and the posts they belong to."""

from __future__ import annotations

from support.sites import DATA, post

CASES = DATA / "cases"

POSTS = {
    "posts/harbour-lights.md": post("Harbour lights", "2019-12-31T18:00:00+08:00"),
    "posts/harbour-lights.zh.md": post("港口的灯", "2019-12-31T18:00:00+08:00"),
    "posts/tides.md": post(
        "Tides", "2019-12-30T18:00:00+08:00", aliases='["/2019/12/old-name-of-tides/"]'
    ),
}
