"""Who sent a comment, as far as a server can tell: the client IP (C52), the commenter cookie
(the browser that wrote earlier comments, C48), edit tokens, and the duplicate fingerprint (C37).

Client IP: `client_ip` is the one resolver; the rate limits, the duplicate check, the stored IP
hash, the disallowed-keys match and the dashboard's search by IP all use what it returns. The
socket peer is the client unless it is one of `trusted_proxies`; then `X-Forwarded-For` is
walked from the right (each proxy appends the address it saw) to the first address that is not
a trusted proxy. `X-Real-IP` and `Forwarded` (RFC 7239) are never read: any client can send them,
and a proxy that does not overwrite them passes the client's choice on. This is the rule
uvicorn's and granian's proxy-header middlewares apply, so the result is the same whether or not
the server in front rewrote the ASGI `client` already.

Secrets: every key here is derived from the site secret (`store.site_secrets.site_secret`) with its
own purpose, so an IP hash can never stand in for a cookie or a token. Signing is itsdangerous
(HMAC-SHA1 over URL-safe base64, with a timestamp where a token expires).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import secrets
import time
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from itsdangerous import BadSignature, SignatureExpired, Signer, TimestampSigner

from masthead.comments.text import newlines

COOKIE = "masthead_commenter"
COOKIE_MAX_AGE = 400 * 24 * 3600  # seconds: the longest a browser keeps a cookie (RFC 6265bis)
FORWARDING_HEADERS = ("x-forwarded-for", "x-real-ip", "forwarded")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Headers = Mapping[str, str] | Iterable[tuple[bytes, bytes]]


def _address(value: str) -> str:
    """`value` (an IP, maybe `v4:port` or `[v6]:port`) in its canonical form (IPv4-mapped IPv6
    as IPv4); a value that is no IP comes back trimmed, as it is."""
    text = value.strip()
    if text.startswith("[") and "]" in text:
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return value.strip()
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


@lru_cache(maxsize=64)
def _networks(trusted: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(t.strip(), strict=False) for t in trusted)


def _trusted(host: str, networks: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return any(ip.version == n.version and ip in n for n in networks)


def _header_values(headers: Headers, name: str) -> list[str]:
    if isinstance(headers, Mapping):
        getlist = getattr(headers, "getlist", None)  # Starlette's Headers keep repeated ones
        if getlist is not None:
            return list(getlist(name))
        value = headers.get(name)
        return [value] if value is not None else []
    raw = name.encode("latin-1")
    return [v.decode("latin-1") for k, v in headers if k.lower() == raw]


def client_ip(
    scope_client_host: str | None, headers: Headers, trusted_proxies: Sequence[str]
) -> str:
    """The client's IP address (canonical text form, "" when there is no peer). The socket peer
    `scope_client_host` is the client, unless it is in `trusted_proxies` (addresses or networks,
    the setting of that name): then every `X-Forwarded-For` header (RFC 7239 §7.5's de facto
    format, a comma-separated list) is read right to left and the first address that is not a
    trusted proxy is the client; when every hop is trusted, the leftmost. `headers`: a mapping
    (Starlette's `Headers`) or the ASGI scope's raw `(name, value)` pairs."""
    peer = _address(scope_client_host or "")
    networks = _networks(tuple(trusted_proxies))
    if not networks or not _trusted(peer, networks):
        return peer
    hops = [h for v in _header_values(headers, "x-forwarded-for") for h in v.split(",")]
    hops = [_address(h) for h in hops if h.strip()]
    for hop in reversed(hops):
        if not _trusted(hop, networks):
            return hop
    return hops[0] if hops else peer


def client_ip_of(scope: Mapping[str, Any], trusted_proxies: Sequence[str]) -> str:
    """`client_ip` of an ASGI HTTP `scope` (its `client` and raw `headers`)."""
    client = scope.get("client")
    return client_ip(client[0] if client else None, scope.get("headers") or [], trusted_proxies)


def forwarding_headers(headers: Headers) -> list[str]:
    """Which of `X-Forwarded-For`, `X-Real-IP` and `Forwarded` a request carries (lower case),
    for the warning that they are ignored while no proxy is trusted."""
    return [name for name in FORWARDING_HEADERS if _header_values(headers, name)]


def _key(secret: bytes, purpose: str) -> bytes:
    return hmac.new(secret, b"masthead/" + purpose.encode(), hashlib.sha256).digest()


def _digest(secret: bytes, purpose: str, value: str) -> str:
    data = value.encode("utf-8", "surrogatepass")  # a header decoded as Latin-1, or anything
    return hmac.new(_key(secret, purpose), data, hashlib.sha256).hexdigest()[:32]


def ip_hash(secret: bytes, ip: str) -> str:
    """The stored form of a client IP: a keyed hash (HMAC-SHA256, 128 bits as 32 hex digits),
    so a leaked database does not give readers' addresses; "" for no IP."""
    return _digest(secret, "ip", ip) if ip else ""


def new_commenter_id() -> str:
    """A fresh random commenter id (128 bits, URL-safe) for a browser without the cookie."""
    return secrets.token_urlsafe(16)


def sign_cookie(secret: bytes, commenter_id: str) -> str:
    """The value of the `COOKIE` cookie for `commenter_id`: the id, signed."""
    return Signer(_key(secret, "commenter"), salt="commenter").sign(commenter_id).decode()


def read_cookie(secret: bytes, value: str | None) -> str | None:
    """The commenter id in a `COOKIE` value, or None when there is none or its signature is
    wrong (a forged or foreign cookie is no cookie)."""
    if not value:
        return None
    try:
        found = Signer(_key(secret, "commenter"), salt="commenter").unsign(value).decode()
    except (BadSignature, UnicodeDecodeError):
        return None
    return found or None


def client_hash(secret: bytes, commenter_id: str | None) -> str:
    """The stored form of a commenter id (as `ip_hash`); "" without one."""
    return _digest(secret, "client", commenter_id) if commenter_id else ""


class _Clocked(TimestampSigner):
    """A TimestampSigner that reads the time given (tests, a site's clock) or the system's."""

    def __init__(self, secret: bytes, now: float | None) -> None:
        super().__init__(_key(secret, "edit"), salt="edit")
        self._now = now

    def get_timestamp(self) -> int:
        return int(time.time() if self._now is None else self._now)


def _edit_value(comment_id: int, token_key: str) -> bytes:
    return f"{comment_id}.{token_key}".encode()


def edit_token(secret: bytes, comment_id: int, token_key: str, *, now: float | None = None) -> str:
    """A token that lets its holder edit or delete comment `comment_id` (signed, timestamped
    `now`, seconds since the epoch, default the system clock: `check_edit_token` enforces the
    age). `token_key` is that row's random `token_key` column: ids are reused (a restore of an
    older backup, a delete of the newest rows), so the token is bound to the row, not the id."""
    return _Clocked(secret, now).sign(_edit_value(comment_id, token_key)).decode()


def check_edit_token(
    secret: bytes,
    token: str,
    comment_id: int,
    token_key: str,
    max_age: int,
    *,
    now: float | None = None,
) -> bool:
    """True when `token` was made by `edit_token` for this very comment (`comment_id` and its
    row's `token_key`) at most `max_age` seconds before `now` (`comments_edit_minutes` * 60);
    False for another comment (one that has the id now, too), an old, forged or malformed
    token, an empty `token_key`, or `max_age` <= 0."""
    if max_age <= 0 or not token or not token_key:
        return False
    try:
        value = _Clocked(secret, now).unsign(token, max_age=max_age)
    except (SignatureExpired, BadSignature):
        return False
    return hmac.compare_digest(value, _edit_value(comment_id, token_key))


def fingerprint(thread: str, parent: int | None, name: str, email: str, body: str) -> str:
    """The duplicate key of a comment (C37): SHA-256 over the thread, the parent, the author's
    name and email (trimmed, case-folded) and the text (line breaks as LF, surrounding spaces
    trimmed). Two submissions with the same key are one comment."""
    parts = [
        thread,
        "" if parent is None else str(parent),
        " ".join(name.split()).casefold(),
        email.strip().casefold(),
        newlines(body).strip(),
    ]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()  # ASCII: \u escapes
