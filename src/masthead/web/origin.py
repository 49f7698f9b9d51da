"""Is a state-changing request from this site's own pages? (Fetch Metadata and Origin.)

Browsers send `Sec-Fetch-Site` (https://www.w3.org/TR/fetch-metadata/) and, on POSTs, `Origin`
(RFC 6454; the Fetch standard). A request is refused when either says it came from another
site: an `Origin` that is not one of ours (or allowed), the opaque `Origin: null` (sandboxed
frames, some redirects), or, without an `Origin`, `Sec-Fetch-Site: cross-site` (or `same-site`:
a sibling subdomain is another site here). A request with neither header is not from a current
browser's cross-site page (scripts, curl, old clients): the per-session CSRF token or the JSON
content type decides then.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from masthead.config import origin_of


def own_origins(base_url: str, host_url: str, extra: Iterable[str] = ()) -> set[str]:
    """The origins counted as this site: that of `base_url` (the effective base URL), that of
    the URL the request was made to (`host_url`, e.g. `str(request.base_url)`), and `extra`
    (say `allowed_origins`, for the public comment forms of an exported copy)."""
    found = set(extra)
    for url in (base_url, host_url):
        try:
            found.add(origin_of(url))
        except ValueError:
            continue
    return found


def cross_site(headers: Mapping[str, str], origins: set[str]) -> str | None:
    """Why the request came from another site (a message for the 403), or None when it did
    not, by `Sec-Fetch-Site` and `Origin` against `origins` (`own_origins`)."""
    origin = headers.get("origin")
    if origin is not None:
        if origin.strip().lower() == "null":
            return "refused: the request came from an opaque origin (Origin: null)"
        try:
            theirs = origin_of(origin)
        except ValueError:
            return "refused: the Origin header is not an origin"
        if theirs in origins:
            return None  # ours, or an allowed one (whose fetches are cross-site by nature)
        return f"refused: the request came from another site ({theirs})"
    fetch_site = headers.get("sec-fetch-site", "").lower()
    if fetch_site in ("cross-site", "same-site"):
        return f"refused: the request came from another site (Sec-Fetch-Site: {fetch_site})"
    return None
