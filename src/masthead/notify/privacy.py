"""Readers' privacy requests (GDPR articles 15 and 17): asking by mail, and answering.

`ask` takes an address and a kind (`export` or `erase`) from the public form and, within the
rate limits, records the request and queues a mail to that address with a signed link
(notify/tokens.py: expires after a day, works once). It does the same whether or not the
address wrote any comment (same answer, same mail), so the form tells nobody else whether an
address has comments here; only the owner of the address learns it, on the link's page.

Limits, so the form cannot be used to fill an inbox: `PER_ADDRESS` requests per address and
`PER_CLIENT` per client (the keyed hash of its IP) in `WINDOW` seconds. Past either, nothing is
recorded and no mail goes out (`Asked.limited`).

Answering (`export`, `erase`) is `comments.port`'s, which writes the audit row and closes the
request in the same transaction, from a reader's link, the dashboard or the command line.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from email.errors import MessageError
from enum import Enum

from masthead.config import Site
from masthead.config.mail import InvalidAddress, address
from masthead.notify import messages, tokens
from masthead.notify.collect import Links
from masthead.notify.sender import off_reason
from masthead.store import outbox, site_secrets
from masthead.store import privacy_requests as requests
from masthead.store.db import Database

KIND = "privacy"  # the outbox rows' kind
PER_ADDRESS = 3
PER_CLIENT = 10
WINDOW = 3600.0
MAX_EMAIL = 254  # RFC 5321's limit on a path


class Asked(Enum):
    MAILED = "mailed"  # recorded, and the link queued (when the address can have one)
    LIMITED = "limited"  # too many requests for that address or from that client
    INVALID = "invalid"  # not one email address
    OFF = "off"  # the site sends no mail


@dataclass(frozen=True)
class Answer:
    """What `ask` did, and the request's id when one was recorded."""

    asked: Asked
    request_id: int | None = None


def email_hash(secret: bytes, email: str) -> str:
    """The keyed hash an address is counted by (trimmed, case-folded)."""
    folded = email.strip().casefold().encode("utf-8")
    return hmac.new(secret, b"privacy-email\0" + folded, "sha256").hexdigest()[:32]


def valid(email: str) -> bool:
    """Whether `email` is one address a mail can go to."""
    if not email.strip() or len(email) > MAX_EMAIL or "@" not in email:
        return False
    try:
        address(email)
    except (InvalidAddress, MessageError, ValueError):
        return False
    return True


def ask(
    db: Database, site: Site, base_url: str, kind: str, email: str, client: str, now: float
) -> Answer:
    """A reader asks for `kind` ('export' or 'erase') of the comments of `email`, from client
    `client` (a keyed hash of its IP): record it and queue the mail with the link, unless a
    limit is reached. Raises `ValueError` for another kind."""
    if kind not in requests.KINDS:
        raise ValueError(f"unknown privacy request {kind!r}")
    settings = site.settings
    if off_reason(settings) is not None:
        return Answer(Asked.OFF)
    if not valid(email):
        return Answer(Asked.INVALID)
    secret = site_secrets.site_secret(db)
    hashed = email_hash(secret, email)
    with db.write() as conn:
        since = now - WINDOW
        if (
            requests.recent(conn, since=since, email_hash=hashed) >= PER_ADDRESS
            or requests.recent(conn, since=since, client_hash=client) >= PER_CLIENT
        ):
            return Answer(Asked.LIMITED)
        key = secrets.token_urlsafe(16)
        rid = requests.add(
            conn, kind, email, email_hash=hashed, client_hash=client, key=key, now=now
        )
        token = tokens.privacy_token(secret, rid, kind, key)
        msg = messages.privacy(
            messages.Sender(settings.mail_from_name or settings.title, settings.mail_from_address),
            email.strip(),
            locale=site.default_language.locale,
            kind=kind,
            confirm_link=Links(base_url.rstrip("/")).privacy(token),
            hours=tokens.PRIVACY_MAX_AGE // 3600,
            now=now,
        )
        raw = msg.as_bytes()
        outbox.enqueue(conn, KIND, str(msg["To"]), raw, comment_id=None, now=now)
    return Answer(Asked.MAILED, rid)


@dataclass(frozen=True)
class Confirmed:
    """A privacy link's request, checked: the row, and whether it can still act."""

    request: requests.Request
    used: bool


def check(db: Database, token: str) -> Confirmed:
    """The request a link's `token` stands for. Raises `tokens.TokenError` ("expired" or
    "invalid": not ours, or its request is gone or is another row now)."""
    signed = tokens.read_privacy(site_secrets.site_secret(db), token)
    conn = db.read()
    row = requests.get(conn, signed.request_id)
    if row is None or row.kind != signed.kind or not hmac.compare_digest(row.key, signed.key):
        raise tokens.TokenError("invalid")
    return Confirmed(row, outbox.token_used(conn, token) or row.state == "done")


def use(db: Database, token: str, now: float) -> bool:
    """Spend `token`; False when it had been used already (a second click that raced)."""
    with db.write() as conn:
        return outbox.use_token(conn, token, now)
