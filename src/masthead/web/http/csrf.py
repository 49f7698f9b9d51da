"""Cross-site request checks for the public comment forms, with no token in the page (so pages
stay cacheable and a form opened hours ago still posts, C50).

- Every state-changing request (POST, PATCH, DELETE) is checked by where it comes from: its
  `Origin` header (Fetch Standard, https://fetch.spec.whatwg.org/#origin-header) must be this
  site's own origin or one of `allowed_origins`; without `Origin`, `Sec-Fetch-Site` (Fetch
  Metadata, https://www.w3.org/TR/fetch-metadata/) must be `same-origin` or `none`. A request
  with neither header comes from no browser (curl, a script): no page can have sent it on a
  reader's behalf, so it passes. `Origin: null` (sandboxed frames, some redirects) fails.
- Script requests that are not JSON also carry the double-submit cookie: the page's script puts
  one random value in the `masthead_csrf` cookie and in the `X-CSRF-Token` header; another site
  can neither read nor set our cookie, so it cannot make the two agree (OWASP CSRF Prevention
  Cheat Sheet, "Signed Double-Submit Cookie" without a server secret, since no session exists).
  A JSON request (`Content-Type: application/json`) needs no cookie: no cross-site page can
  send one without a CORS preflight, which only `allowed_origins` pass.
"""

from __future__ import annotations

import contextlib
import hmac
from collections.abc import Collection, Mapping

from starlette.requests import HTTPConnection

from masthead.config.origins import origin_of

CSRF_COOKIE = "masthead_csrf"
CSRF_HEADER = "x-csrf-token"
SAFE_FETCH_SITES = ("same-origin", "none")  # `none`: typed or bookmarked by the user


def own_origins(request: HTTPConnection, base_url: str) -> set[str]:
    """This site's origins: the one the request was sent to (its scheme and `Host`) and the
    origin of the site's base URL (a proxy in front may terminate TLS)."""
    out = set()
    host = request.headers.get("host")
    if host:
        with contextlib.suppress(ValueError):  # a malformed Host matches nothing
            out.add(origin_of(f"{request.url.scheme}://{host}"))
    with contextlib.suppress(ValueError):
        out.add(origin_of(base_url))
    return out


def origin_problem(
    headers: Mapping[str, str], own: Collection[str], allowed: Collection[str]
) -> str | None:
    """Why a state-changing request with `headers` must be refused (a sentence for the 403),
    or None when it may go on. `own`: this site's origins; `allowed`: `allowed_origins`."""
    origin = headers.get("origin")
    if origin is not None:
        try:
            normal = origin_of(origin.strip(), exact=True)
        except ValueError:
            return f"this request comes from {origin!r}, not from a page of this site"
        if normal in own or normal in allowed:
            return None
        return f"this request comes from {normal}, not from a page of this site"
    site = headers.get("sec-fetch-site")
    if site is not None and site.strip().lower() not in SAFE_FETCH_SITES:
        return "this request comes from another site's page (Sec-Fetch-Site: " + site + ")"
    return None


def double_submit_problem(cookies: Mapping[str, str], headers: Mapping[str, str]) -> str | None:
    """Why a script request fails the double-submit check, or None: the `X-CSRF-Token` header
    must be present and equal to the `masthead_csrf` cookie (compared in constant time)."""
    cookie = cookies.get(CSRF_COOKIE, "")
    header = headers.get(CSRF_HEADER, "")
    if not cookie or not header:
        return "a script request needs the masthead_csrf cookie and the X-CSRF-Token header"
    if not hmac.compare_digest(cookie.encode("utf-8"), header.encode("utf-8")):
        return "the X-CSRF-Token header does not match the masthead_csrf cookie"
    return None
