"""Whether a replica's store can be reached at all, asked before a command that reads it.

Litestream retries an S3 store that does not answer ten times with backoff (its own fixed
retryer, not a setting), so `masthead restore --from-replica` or `replica status` against a
store that is down or a mistyped endpoint waited almost two minutes before saying so. A TCP
connection to the store's host, with a short timeout, says the same in seconds. It proves
nothing more than that something listens there: everything else (the bucket, the credentials)
is still Litestream's to find and report.

Only S3 URLs are checked (`file://` is local; other schemes go straight to Litestream), and not
when the connection goes through a proxy (`HTTPS_PROXY` and the rest): Litestream honours the
proxy, and a direct connection would fail where Litestream succeeds.
"""

from __future__ import annotations

import socket
from urllib.parse import parse_qs, urlsplit
from urllib.request import getproxies, proxy_bypass

TIMEOUT = 10.0  # seconds: a store that does not accept a connection in this time is down


def endpoint(url: str) -> tuple[str, int] | None:
    """(host, port) that Litestream connects to for replica `url`, or None when it is not an
    S3 URL (or names no host masthead can tell)."""
    parts = urlsplit(url)
    if parts.scheme != "s3":
        return None
    query = parse_qs(parts.query)
    named = (query.get("endpoint") or [""])[0]
    if named:
        target = urlsplit(named if "://" in named else f"https://{named}")
        if not target.hostname:
            return None
        default = 80 if target.scheme == "http" else 443
        try:
            return target.hostname, target.port or default
        except ValueError:  # a port that is not a number: Litestream will say so
            return None
    region = (query.get("region") or [""])[0]
    return (f"s3.{region}.amazonaws.com" if region else "s3.amazonaws.com"), 443


def unreachable(url: str, timeout: float = TIMEOUT) -> str | None:
    """Why the store of replica `url` cannot be reached ("127.0.0.1:9: connection refused"),
    or None when it accepts a connection or is not checked (see the module)."""
    target = endpoint(url)
    if target is None or _proxied(target[0]):
        return None
    host, port = target
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        if isinstance(exc, TimeoutError):
            reason = f"no answer in {timeout:g} s"
        return f"{host}:{port}: {reason.lower()}"


def _proxied(host: str) -> bool:
    proxies = getproxies()
    if not any(proxies.get(name) for name in ("https", "http", "all")):
        return False
    return not proxy_bypass(host)
