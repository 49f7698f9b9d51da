"""/guanli accounts: users with argon2id passwords, roles, API tokens, sessions and throttled
sign-in. The SQL is in `store/users.py`; every login, lock-out and user change is written to the
audit log (`store.audit_log.log_event`).

- Passwords: argon2id (argon2-cffi's `PasswordHasher`, RFC 9106 parameters), at least
  `MIN_PASSWORD` characters; a hash made with older parameters is upgraded at the next login.
- Roles: `editor` (moderates) and `admin` (also users and settings).
- API tokens: 43 URL-safe characters (32 random bytes), shown once, stored as SHA-256.
- Sessions: a random cookie id (stored as its SHA-256) with a CSRF token; idle sessions expire
  after `SESSION_IDLE` seconds, every session after `SESSION_MAX`.
- Throttling: `MAX_FAILURES` failed logins within `LOCK_WINDOW` seconds, for one account or one
  client, lock that account or client out until `LOCK_WINDOW` after the last failure. Each
  attempt is counted before its password is checked, in the transaction that checks the lock.
- Sign-in takes as long for an unknown name as for a known one (a dummy hash is checked).
"""

from __future__ import annotations

import functools
import hashlib
import re
import secrets
import sqlite3
import time
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from masthead.errors import MastheadError
from masthead.store import audit_log
from masthead.store import users as store
from masthead.store.db import Database
from masthead.store.users import ROLES, Session, User

MIN_PASSWORD = 10  # characters
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
SESSION_IDLE = 8 * 3600.0  # seconds
SESSION_MAX = 30 * 86400.0
TOUCH_EVERY = 60.0  # seconds between writes of a session's last-seen time
MAX_FAILURES = 5
LOCK_WINDOW = 15 * 60.0

_hasher = PasswordHasher()  # argon2id with RFC 9106's low-memory parameters


class AccountError(MastheadError):
    """A refused account change (bad name, role or password; unknown or taken name)."""


class LoginRefused(MastheadError):
    """Wrong name or password, or a lock-out: `message` says which; `retry_after` in seconds
    while locked (0 otherwise)."""

    def __init__(self, message: str, retry_after: int = 0) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class SignedIn:
    """A live session: its `user`, the `session` row and (at login only) the cookie `cookie_id`."""

    user: User
    session: Session
    cookie_id: str = ""


def digest(secret: str) -> str:
    """SHA-256 hex of a session id or token (high-entropy secrets: no salt needed)."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def hash_password(password: str) -> str:
    """The argon2id PHC string of `password`; raises `AccountError` when it is too short."""
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"the password must have at least {MIN_PASSWORD} characters")
    return _hasher.hash(password)


def _check_name(name: str) -> str:
    if not NAME.fullmatch(name):
        raise AccountError(
            f"{name!r}: a user name is 1-64 letters, digits, '.', '_' or '-', starting with "
            "a letter or digit"
        )
    return name


def add_user(db: Database, name: str, password: str, role: str = "editor", email: str = "") -> User:
    """Create a user; raises `AccountError` for a bad or taken name, role or password."""
    _check_name(name)
    if role not in ROLES:
        raise AccountError(f"{role!r}: the role is 'editor' or 'admin'")
    password_hash = hash_password(password)
    email = email.strip()
    if email and ("@" not in email or any(c.isspace() for c in email)):
        raise AccountError(f"{email!r} is not an email address")
    try:
        with db.write() as conn:
            user_id = store.insert_user(conn, name, email, role, password_hash, time.time())
            audit_log.log_event(conn, "system", "user-add", detail={"user": name, "role": role})
    except sqlite3.IntegrityError:
        raise AccountError(f"there is already a user named {name!r}") from None
    found = store.user_by_id(db.read(), user_id)
    assert found is not None  # nosec B101: just inserted
    return found


def remove_user(db: Database, name: str) -> None:
    """Delete a user with their sessions and tokens; `AccountError` when there is none."""
    with db.write() as conn:
        if not store.delete_user(conn, name):
            raise AccountError(f"there is no user named {name!r}")
        audit_log.log_event(conn, "system", "user-remove", detail={"user": name})


def set_password(db: Database, name: str, password: str) -> None:
    """Change a password; every session of the user ends."""
    password_hash = hash_password(password)
    with db.write() as conn:
        user = store.user_by_name(conn, name)
        if user is None:
            raise AccountError(f"there is no user named {name!r}")
        store.set_password_hash(conn, user.id, password_hash)
        audit_log.log_event(conn, "system", "user-password", detail={"user": user.name})


def new_token(db: Database, name: str) -> str:
    """A new API token for user `name` (returned once; only its hash is kept)."""
    token = secrets.token_urlsafe(32)
    with db.write() as conn:
        user = store.user_by_name(conn, name)
        if user is None:
            raise AccountError(f"there is no user named {name!r}")
        store.insert_token(conn, user.id, digest(token), time.time())
        audit_log.log_event(conn, "system", "token-add", detail={"user": user.name})
    return token


def revoke_tokens(db: Database, name: str) -> int:
    """Revoke every API token of user `name`; returns how many."""
    with db.write() as conn:
        user = store.user_by_name(conn, name)
        if user is None:
            raise AccountError(f"there is no user named {name!r}")
        count = store.delete_tokens(conn, user.id)
        audit_log.log_event(
            conn, "system", "token-revoke", detail={"user": user.name, "count": count}
        )
    return count


def user_for_token(db: Database, token: str) -> User | None:
    """The user an `Authorization: Bearer` token belongs to, else None."""
    if len(token) < 32:
        return None
    return store.user_by_token(db.read(), digest(token))


# --- sign-in ------------------------------------------------------------------------------


def login(
    db: Database,
    name: str,
    password: str,
    *,
    client: str,
    user_agent: str = "",
    now: float | None = None,
) -> SignedIn:
    """Check `name` and `password` and open a session; `client` is the keyed hash of the
    client's IP (store/comments' hashing). Raises `LoginRefused` for a wrong pair (one message
    for both, so names cannot be probed) or while the account or client is locked.

    The lock-out check and the failure it counts are one write transaction
    (`store.claim_attempt`): of 30 parallel wrong passwords, `MAX_FAILURES` are checked. An
    unknown name is checked against a dummy hash with the same parameters, so the answer takes
    as long as for a real name."""
    now = time.time() if now is None else now
    keys = [f"user:{name.casefold()}", f"client:{client}"]
    with db.write() as w:
        wait, claimed = store.claim_attempt(w, keys, now, LOCK_WINDOW, MAX_FAILURES)
        if wait:
            audit_log.log_event(w, f"login:{name}", "login-locked", detail={"client": client})
    if wait:
        minutes = max(1, round(wait / 60))
        raise LoginRefused(
            f"Too many failed sign-ins: try again in about {minutes} minutes.",
            retry_after=int(wait) + 1,
        )
    user = store.user_by_name(db.read(), name)
    good = _verify(user.password_hash if user else _dummy_hash(), password)
    if user is None or not good:
        with db.write() as w:  # the failure was counted by the claim
            audit_log.log_event(w, f"login:{name}", "login-failed", detail={"client": client})
        raise LoginRefused("Wrong user name or password.")
    cookie_id = secrets.token_urlsafe(32)
    session = Session(
        id_hash=digest(cookie_id),
        user_id=user.id,
        csrf=secrets.token_urlsafe(32),
        created=now,
        seen=now,
        expires=now + SESSION_IDLE,
        ip_hash=client,
        user_agent=user_agent[:300],
    )
    with db.write() as w:
        if _hasher.check_needs_rehash(user.password_hash):
            store.set_password_hash(w, user.id, _hasher.hash(password))
        store.insert_session(w, session)
        store.forget_failures(w, claimed)
        store.clear_failures(w, [keys[0]], before=now - LOCK_WINDOW)
        audit_log.log_event(w, f"editor:{user.name}", "login", detail={"client": client})
    return SignedIn(user, session, cookie_id)


@functools.cache
def _dummy_hash() -> str:
    """A hash of a random password with the current parameters: what an unknown name's
    password is checked against (the check costs what a real one costs)."""
    return _hasher.hash(secrets.token_urlsafe(32))


def _verify(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def session_for(db: Database, cookie_id: str, now: float | None = None) -> SignedIn | None:
    """The live session of a session cookie's id, its idle expiry moved on; else None."""
    if not cookie_id:
        return None
    now = time.time() if now is None else now
    conn = db.read()
    found = store.session(conn, digest(cookie_id), now)
    if found is None or now - found.created > SESSION_MAX:
        return None
    user = store.user_by_id(conn, found.user_id)
    if user is None:
        return None
    if now - found.seen > TOUCH_EVERY:
        with db.write() as w:
            store.touch_session(w, found.id_hash, now, now + SESSION_IDLE)
    return SignedIn(user, found)


def logout(db: Database, cookie_id: str) -> None:
    """End the session of a session cookie's id (no error when there is none)."""
    with db.write() as conn:
        signed = store.session(conn, digest(cookie_id), time.time())
        if store.delete_session(conn, digest(cookie_id)) and signed is not None:
            user = store.user_by_id(conn, signed.user_id)
            audit_log.log_event(conn, f"editor:{user.name if user else '?'}", "logout")


def revoke_session(db: Database, id_hash: str, actor: str) -> bool:
    """End one session by its id hash (the dashboard's session list)."""
    with db.write() as conn:
        done = store.delete_session(conn, id_hash)
        if done:
            audit_log.log_event(conn, actor, "session-revoke")
    return done
