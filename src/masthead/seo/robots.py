"""robots.txt (RFC 9309, the Robots Exclusion Protocol) with the sitemap's address.

Every crawler may fetch the whole site, search pages included: they carry `noindex`, which a
crawler can only obey if it may read the page. The dashboard and the JSON API are disallowed.
Disallow lines come before `Allow: /` because simple parsers (Python's `urllib.robotparser`)
apply the first matching rule, while RFC 9309 parsers take the longest match; this order means
the same to both.
"""

from __future__ import annotations

from collections.abc import Sequence


def robots_txt(*, sitemap_url: str, disallow: Sequence[str], extra: str = "") -> str:
    """The text of `/robots.txt`: one group for every user agent (`disallow` paths, each starting
    with `/`, then `Allow: /`), `extra` lines as written (e.g. a group for one crawler), and the
    absolute `sitemap_url`. Raises ValueError for a path that does not start with `/`."""
    lines = ["User-agent: *"]
    for path in disallow:
        if not path.startswith("/"):
            raise ValueError(f"robots.txt path {path!r} must start with /")
        lines.append(f"Disallow: {path}")
    lines.append("Allow: /")
    if extra.strip():
        lines += ["", extra.strip()]
    lines += ["", f"Sitemap: {sitemap_url}"]
    return "\n".join(lines) + "\n"
