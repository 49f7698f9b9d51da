"""The address a site is served at, and the base URL its absolute links are built on.

Absolute URLs (canonical links, hreflang alternates, og:url, JSON-LD, feeds, sitemaps, robots.txt's
Sitemap line, cover images) start with one base URL, `SiteState.base_url`: the `base_url` setting
in production when it is set, else the address the server listens on (as `hugo server` does);
under `--dev` always the served address, so that links on a laptop lead back to the laptop. The
Host header is never used: readers choose it, and pages built from it would be cached for all.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from masthead.config import Settings

DEFAULT_SERVED = "http://127.0.0.1:8000"  # no socket known (an app under a test client)
# binds to every interface: names compared with, never bound to
WILDCARDS = {"", "0.0.0.0", "::"}  # nosec B104


def served_address(host: str, port: int) -> str:
    """`http://HOST:PORT`, the origin a server bound to `(host, port)` answers on: an IPv6
    address in brackets (RFC 3986 section 3.2.2), a wildcard bind (`0.0.0.0`, `::`) as `localhost`
    (no one address names every interface). `port` is the bound one, never 0."""
    if host in WILDCARDS:
        host = "localhost"
    try:
        if ipaddress.ip_address(host).version == 6:
            host = f"[{host}]"
    except ValueError:  # a name such as localhost
        pass
    return f"http://{host}:{port}"


@dataclass(frozen=True)
class BaseURL:
    """The base URL (`http(s)://host[:port]`, no trailing slash) and where it came from, in words
    for `serve` to print."""

    url: str
    source: str


def base_url(settings: Settings, *, dev: bool, served: str | None) -> BaseURL:
    """The base URL of every absolute link: the `base_url` setting in production, else `served`
    (the listening address; `DEFAULT_SERVED` when there is none, as under a test client)."""
    if settings.base_url and not dev:
        return BaseURL(settings.base_url, "the base_url setting")
    url = (served or DEFAULT_SERVED).rstrip("/")
    if dev:
        return BaseURL(url, "the served address (--dev ignores base_url)")
    return BaseURL(url, "the served address (base_url is not set)")
