"""Signed one-click tokens for links in mails (itsdangerous, HMAC-SHA1 over a compact JSON
payload, keyed by the site secret; URL-safe: letters, digits, `-`, `_` and `.`).

Both carry the comment's id and its row's random `token_key` (migration 9): ids are reused (a
restore of an older backup, a delete of the newest rows), and a link mailed for one comment
must never act on another that has its id now. The caller compares the key with the row's.

- An *action* token (moderation links to editors) carries the comment id, the action
  (`approve` or `spam`), the comment's version when the mail was made (the id of its latest
  audit-log row) and its key: it is bound to that comment and that action, expires after
  `ACTION_MAX_AGE`, and a change to the comment since the mail (another status, an edit) makes
  it stale. Single use is kept by the caller (`store.outbox.use_token`). Tokens made before
  the key (three items) are invalid: they lasted a week.
- An *unsubscribe* token (reply mails to a commenter) carries the id and key of the comment
  whose author asked to be told; it does not expire (RFC 8058 links must keep working in old
  mails) and may be used again (stopping twice changes nothing). One made before the key (the
  bare id) is still read, with no key to compare, so that old mails keep working.

- A *privacy* token (a reader's request for a copy or the erasure of their comments, mailed
  to the address it is about) carries the request's id, its kind and its row's random key; it
  expires after `PRIVACY_MAX_AGE` and works once (`store.outbox.use_token`).

The kinds use different salts, so one can never stand for another.
"""

from __future__ import annotations

from dataclasses import dataclass

from itsdangerous import BadSignature, SignatureExpired, URLSafeSerializer, URLSafeTimedSerializer

ACTIONS = {"approve": "approved", "spam": "spam"}  # action → the status it sets
ACTION_MAX_AGE = 7 * 24 * 3600  # seconds (C46: "expires, for example after 7 days")
_ACTION_SALT = "masthead.mail.action"
_UNSUBSCRIBE_SALT = "masthead.mail.unsubscribe"


class TokenError(ValueError):
    """A token that cannot be used: `reason` is `expired` or `invalid` (bad signature, wrong
    kind, damaged)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Action:
    comment_id: int
    action: str  # a key of ACTIONS
    version: int  # the comment's audit version when the link was made
    key: str  # the comment's `token_key` when the link was made


def action_token(secret: bytes, comment_id: int, action: str, version: int, key: str) -> str:
    """A token for `action` (a key of `ACTIONS`) on comment `comment_id` at `version`, whose
    row has `token_key` `key`."""
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}")
    payload = [comment_id, action, version, key]
    return str(URLSafeTimedSerializer(secret, _ACTION_SALT).dumps(payload))


def read_action(secret: bytes, token: str, max_age: int = ACTION_MAX_AGE) -> Action:
    """The `Action` that `token` signs. Raises `TokenError("expired")` past `max_age` seconds,
    `TokenError("invalid")` for anything else that is not one of our action tokens."""
    try:
        payload = URLSafeTimedSerializer(secret, _ACTION_SALT).loads(token, max_age=max_age)
    except SignatureExpired:
        raise TokenError("expired") from None
    except BadSignature:
        raise TokenError("invalid") from None
    match payload:
        case [int(cid), str(action), int(version), str(key)] if action in ACTIONS and key:
            return Action(cid, action, version, key)
    raise TokenError("invalid")


def unsubscribe_token(secret: bytes, comment_id: int, key: str) -> str:
    """A token that stops reply mails to the author of comment `comment_id` (`token_key`
    `key`)."""
    return str(URLSafeSerializer(secret, _UNSUBSCRIBE_SALT).dumps([comment_id, key]))


def read_unsubscribe(secret: bytes, token: str) -> tuple[int, str | None]:
    """`(comment id, key)` that `token` signs, the key None for a token made before keys (a
    bare id); raises `TokenError("invalid")` when it is not ours."""
    try:
        payload = URLSafeSerializer(secret, _UNSUBSCRIBE_SALT).loads(token)
    except BadSignature:
        raise TokenError("invalid") from None
    match payload:
        case int(cid) if type(cid) is int:  # not a bool
            return cid, None
        case [int(cid), str(key)] if type(cid) is int and key:
            return cid, key
    raise TokenError("invalid")


PRIVACY_MAX_AGE = 24 * 3600  # seconds: a privacy request's link works for a day
_PRIVACY_SALT = "masthead.mail.privacy"


@dataclass(frozen=True)
class Privacy:
    request_id: int
    kind: str  # 'export' or 'erase'
    key: str  # the request's random `key`


def privacy_token(secret: bytes, request_id: int, kind: str, key: str) -> str:
    """A token confirming privacy request `request_id` (`kind` 'export' or 'erase', random
    `key` of its row). Expires after `PRIVACY_MAX_AGE`; single use is kept by the caller
    (`store.outbox.use_token`)."""
    if kind not in ("export", "erase"):
        raise ValueError(f"unknown privacy request {kind!r}")
    return str(URLSafeTimedSerializer(secret, _PRIVACY_SALT).dumps([request_id, kind, key]))


def read_privacy(secret: bytes, token: str, max_age: int = PRIVACY_MAX_AGE) -> Privacy:
    """The `Privacy` request `token` signs; `TokenError("expired")` past `max_age` seconds,
    `TokenError("invalid")` for anything else."""
    try:
        payload = URLSafeTimedSerializer(secret, _PRIVACY_SALT).loads(token, max_age=max_age)
    except SignatureExpired:
        raise TokenError("expired") from None
    except BadSignature:
        raise TokenError("invalid") from None
    match payload:
        case [int(rid), str(kind), str(key)] if kind in ("export", "erase") and key:
            if type(rid) is int:
                return Privacy(rid, kind, key)
    raise TokenError("invalid")
