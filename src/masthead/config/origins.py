"""Web origins (RFC 6454): the form `allowed_origins` takes, and what a URL's origin is."""

from __future__ import annotations

from urllib.parse import urlsplit


def origin_of(url: str, *, exact: bool = False) -> str:
    """The origin (RFC 6454 §6.2 serialization: `scheme://host[:port]`, lower-cased, default
    port left out) of an http(s) URL. With `exact`, `url` must be an origin itself (no path
    but `/`, no query, fragment or user). Raises ValueError naming `url` otherwise."""
    parts = urlsplit(url.strip())
    try:
        port = parts.port
    except ValueError:
        port = -1
    bad = parts.scheme.lower() not in ("http", "https") or not parts.hostname or port == -1
    if exact:
        bad = bad or parts.path not in ("", "/") or bool(parts.query or parts.fragment)
        bad = bad or "@" in parts.netloc or "*" in url
    if bad:
        raise ValueError(f"{url!r} is not an origin such as https://www.example.com")
    scheme = parts.scheme.lower()
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    default = {"http": 80, "https": 443}[scheme]
    return f"{scheme}://{host}" + (f":{port}" if port and port != default else "")
