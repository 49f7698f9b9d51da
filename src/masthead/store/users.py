"""/guanli accounts (tables of migration 5): users, server-side sessions, API tokens and the
failed logins that throttle sign-in. SQL only: hashing and policy live in
`masthead.accounts.service`.

Secrets are never stored: a session row holds the SHA-256 of its cookie's random id, a token row
the SHA-256 of the token; a password row its argon2id PHC string. Times are seconds since the
epoch (UTC).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

ROLES = ("editor", "admin")


@dataclass(frozen=True)
class User:
    id: int
    name: str
    email: str
    role: str
    password_hash: str
    created: float


@dataclass(frozen=True)
class Session:
    id_hash: str
    user_id: int
    csrf: str
    created: float
    seen: float
    expires: float
    ip_hash: str
    user_agent: str


def _user(row: sqlite3.Row | None) -> User | None:
    return User(**dict(row)) if row else None


def insert_user(
    conn: sqlite3.Connection, name: str, email: str, role: str, password_hash: str, now: float
) -> int:
    """Add a user; raises `sqlite3.IntegrityError` when the name (case-insensitive) is taken."""
    cur = conn.execute(
        "INSERT INTO users (name, email, role, password_hash, created) "
        "VALUES (:name, :email, :role, :hash, :now)",
        {"name": name, "email": email, "role": role, "hash": password_hash, "now": now},
    )
    return int(cur.lastrowid or 0)


def user_by_name(conn: sqlite3.Connection, name: str) -> User | None:
    row = conn.execute("SELECT * FROM users WHERE name = :n", {"n": name}).fetchone()
    return _user(row)


def user_by_id(conn: sqlite3.Connection, user_id: int) -> User | None:
    return _user(conn.execute("SELECT * FROM users WHERE id = :i", {"i": user_id}).fetchone())


def users(conn: sqlite3.Connection) -> list[User]:
    return [User(**dict(r)) for r in conn.execute("SELECT * FROM users ORDER BY name")]


def delete_user(conn: sqlite3.Connection, name: str) -> bool:
    """Remove a user with their sessions and tokens (cascade); False when there is none."""
    return conn.execute("DELETE FROM users WHERE name = :n", {"n": name}).rowcount > 0


def set_password_hash(conn: sqlite3.Connection, user_id: int, password_hash: str) -> None:
    """Store a new hash and end every session of the user (a changed password signs out)."""
    conn.execute(
        "UPDATE users SET password_hash = :h WHERE id = :i", {"h": password_hash, "i": user_id}
    )
    conn.execute("DELETE FROM sessions WHERE user_id = :i", {"i": user_id})


def staff_emails(conn: sqlite3.Connection) -> set[str]:
    """Every user's address, trimmed and case-folded (a comment claiming one is held, C48)."""
    rows = conn.execute("SELECT email FROM users WHERE email != ''")
    return {r[0].strip().casefold() for r in rows}


def staff_names(conn: sqlite3.Connection) -> list[str]:
    """Every user's name, the name their replies are signed with (a reader's name that folds to
    one is held: `comments.names`)."""
    return [r[0] for r in conn.execute("SELECT name FROM users ORDER BY name")]


# --- sessions -----------------------------------------------------------------------------


def insert_session(conn: sqlite3.Connection, session: Session) -> None:
    conn.execute(
        "INSERT INTO sessions (id_hash, user_id, csrf, created, seen, expires, ip_hash, "
        "user_agent) VALUES (:id_hash, :user_id, :csrf, :created, :seen, :expires, :ip_hash, "
        ":user_agent)",
        session.__dict__,
    )


def session(conn: sqlite3.Connection, id_hash: str, now: float) -> Session | None:
    """The unexpired session with this id hash, else None."""
    row = conn.execute(
        "SELECT * FROM sessions WHERE id_hash = :h AND expires > :now", {"h": id_hash, "now": now}
    ).fetchone()
    return Session(**dict(row)) if row else None


def touch_session(conn: sqlite3.Connection, id_hash: str, now: float, expires: float) -> None:
    conn.execute(
        "UPDATE sessions SET seen = :now, expires = :exp WHERE id_hash = :h",
        {"now": now, "exp": expires, "h": id_hash},
    )


def delete_session(conn: sqlite3.Connection, id_hash: str) -> bool:
    return conn.execute("DELETE FROM sessions WHERE id_hash = :h", {"h": id_hash}).rowcount > 0


def sessions_of(conn: sqlite3.Connection, user_id: int | None = None) -> list[Session]:
    """Sessions (of one user, or all), most recently seen first."""
    rows = conn.execute(
        "SELECT * FROM sessions WHERE :u IS NULL OR user_id = :u ORDER BY seen DESC",
        {"u": user_id},
    )
    return [Session(**dict(r)) for r in rows]


def prune_sessions(conn: sqlite3.Connection, now: float) -> int:
    return conn.execute("DELETE FROM sessions WHERE expires <= :now", {"now": now}).rowcount


# --- API tokens ---------------------------------------------------------------------------


def insert_token(conn: sqlite3.Connection, user_id: int, token_hash: str, now: float) -> int:
    cur = conn.execute(
        "INSERT INTO api_tokens (user_id, token_hash, created) VALUES (:u, :h, :now)",
        {"u": user_id, "h": token_hash, "now": now},
    )
    return int(cur.lastrowid or 0)


def user_by_token(conn: sqlite3.Connection, token_hash: str) -> User | None:
    row = conn.execute(
        "SELECT users.* FROM api_tokens JOIN users ON users.id = api_tokens.user_id "
        "WHERE token_hash = :h",
        {"h": token_hash},
    ).fetchone()
    return _user(row)


def mark_token_used(conn: sqlite3.Connection, token_hash: str, now: float) -> None:
    conn.execute(
        "UPDATE api_tokens SET used = :now WHERE token_hash = :h", {"now": now, "h": token_hash}
    )


def delete_tokens(conn: sqlite3.Connection, user_id: int) -> int:
    """Revoke every token of a user; returns how many."""
    return conn.execute("DELETE FROM api_tokens WHERE user_id = :u", {"u": user_id}).rowcount


def token_count(conn: sqlite3.Connection, user_id: int) -> int:
    row = conn.execute("SELECT count(*) FROM api_tokens WHERE user_id = :u", {"u": user_id})
    return int(row.fetchone()[0])


# --- failed logins ------------------------------------------------------------------------


def record_failure(conn: sqlite3.Connection, keys: list[str], now: float) -> list[int]:
    """Record a failed login for each of `keys` at `now`; the rowids of the new rows."""
    return [
        conn.execute(
            "INSERT INTO login_failures (key, at) VALUES (:k, :at)", {"k": k, "at": now}
        ).lastrowid
        or 0
        for k in keys
    ]


def claim_attempt(
    conn: sqlite3.Connection, keys: list[str], now: float, window: float, limit: int
) -> tuple[float, list[int]]:
    """One sign-in attempt, decided and counted in the caller's write transaction (so parallel
    attempts, in any process, cannot all pass the check before any is counted): when a key
    has `limit` failures within `window` seconds, `(seconds until that lock ends, [])`; else a
    failure is recorded for each key ahead of the password check, `(0, its rowids)`, to be
    taken back by `forget_failures` when the password is right."""
    wait = 0.0
    for key in keys:
        recent = failures_since(conn, key, now - window)
        if len(recent) >= limit:
            wait = max(wait, recent[0] + window - now, 1e-3)  # after the last one
    if wait > 0:
        return wait, []
    return 0.0, record_failure(conn, keys, now)


def forget_failures(conn: sqlite3.Connection, rowids: list[int]) -> None:
    """Take back the failures `claim_attempt` recorded for an attempt that succeeded."""
    conn.executemany("DELETE FROM login_failures WHERE rowid = :r", [{"r": r} for r in rowids])


def failures_since(conn: sqlite3.Connection, key: str, since: float) -> list[float]:
    """Times of the failed logins of `key` since `since`, newest first."""
    rows = conn.execute(
        "SELECT at FROM login_failures WHERE key = :k AND at >= :since ORDER BY at DESC",
        {"k": key, "since": since},
    )
    return [r[0] for r in rows]


def clear_failures(conn: sqlite3.Connection, keys: list[str], before: float | None = None) -> None:
    """Forget failures of `keys` (after a good login), or all older than `before`."""
    for key in keys:
        conn.execute("DELETE FROM login_failures WHERE key = :k", {"k": key})
    if before is not None:
        conn.execute("DELETE FROM login_failures WHERE at < :b", {"b": before})
