"""/guanli accounts (issue 12, item 1): users, argon2id, tokens, sessions, throttled sign-in."""

from __future__ import annotations

import subprocess
import sys

import pytest

from masthead.accounts import service as accounts
from masthead.store import users as store
from masthead.store.db import Database

from support.cli import in_process
from support.sites import post


def masthead(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "masthead", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def db(tmp_path):
    database = Database(tmp_path / "site.db")
    yield database
    database.close()


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_admin_commands_over_the_real_cli(make_site):
    """The first command as a real process (a password piped to its stdin), the others in
    this process through Typer's runner (`in_process`): what they do and say is the same code,
    without a Python start-up and an import of the app each."""
    site = make_site({"posts/a.md": post("A")})
    root = str(site.root)
    made = masthead(
        "admin",
        "add-user",
        root,
        "mei",
        "--role",
        "admin",
        "--email",
        "Mei@Example.com",
        "--password-stdin",
        stdin="correct horse battery\n",
    )
    assert made.returncode == 0, made.stderr
    assert "Added mei (admin)" in made.stdout
    again = in_process("admin", "add-user", root, "MEI", "--password-stdin", input="x" * 12 + "\n")
    assert again.returncode == 2 and "already a user named 'MEI'" in again.stderr
    short = in_process("admin", "add-user", root, "bo", "--password-stdin", input="short\n")
    assert short.returncode == 2 and "at least 10 characters" in short.stderr
    token = in_process("admin", "token", root, "mei")
    assert token.returncode == 0, token.stderr
    secret = token.stdout.strip().splitlines()[-1]
    assert len(secret) >= 32
    db = Database(site.database_path)
    try:
        user = accounts.user_for_token(db, secret)
        assert user is not None and user.name == "mei"
        assert store.staff_emails(db.read()) == {"mei@example.com"}
        stored = (
            db.read()
            .execute("SELECT password_hash, (SELECT token_hash FROM api_tokens) FROM users")
            .fetchone()
        )
        assert stored[0].startswith("$argon2id$") and secret not in stored[1]
        listed = in_process("admin", "list", root)
        assert "mei\tadmin\tMei@Example.com\t0 sessions\t1 tokens" in listed.stdout
        assert in_process("admin", "token", root, "mei", "--revoke").returncode == 0
        assert accounts.user_for_token(db, secret) is None
        changed = in_process(
            "admin", "password", root, "mei", "--password-stdin", input="another long one\n"
        )
        assert changed.returncode == 0
        assert accounts.login(db, "mei", "another long one", client="c").user.name == "mei"
        assert in_process("admin", "remove", root, "mei").returncode == 0
        assert in_process("admin", "remove", root, "mei").returncode == 2
        actions = [r[0] for r in db.read().execute("SELECT action FROM audit_log ORDER BY id")]
        assert actions[:3] == ["user-add", "token-add", "token-revoke"]
        assert actions[-1] == "user-remove"
    finally:
        db.close()


def test_sessions_expire_and_logout_ends_them(db):
    accounts.add_user(db, "ed", "a long password")
    t0 = 1_800_000_000.0
    signed = accounts.login(db, "ed", "a long password", client="c1", now=t0)
    assert signed.cookie_id and signed.session.csrf
    assert accounts.session_for(db, signed.cookie_id, now=t0 + 60).user.name == "ed"
    assert accounts.session_for(db, "forged", now=t0) is None
    idle = t0 + accounts.SESSION_IDLE + 120
    assert accounts.session_for(db, signed.cookie_id, now=idle) is None
    again = accounts.login(db, "ed", "a long password", client="c1", now=t0)
    accounts.logout(db, again.cookie_id)
    assert accounts.session_for(db, again.cookie_id, now=t0 + 1) is None
    raw = db.read().execute("SELECT id_hash FROM sessions").fetchall()
    assert all(signed.cookie_id not in r[0] for r in raw)  # only hashes are kept


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_five_failures_lock_the_account_and_the_client(db):
    accounts.add_user(db, "ed", "a long password")
    t0 = 1_800_000_000.0
    for i in range(5):
        with pytest.raises(accounts.LoginRefused, match="Wrong user name or password"):
            accounts.login(db, "ed", "guess" + str(i), client="attacker", now=t0 + i)
    with pytest.raises(accounts.LoginRefused, match="Too many failed sign-ins") as locked:
        accounts.login(db, "ed", "a long password", client="elsewhere", now=t0 + 10)
    assert locked.value.retry_after > 800
    with pytest.raises(accounts.LoginRefused, match="Too many"):  # the client is locked too
        accounts.login(db, "other", "whatever", client="attacker", now=t0 + 10)
    later = t0 + 4 + accounts.LOCK_WINDOW + 1
    assert accounts.login(db, "ed", "a long password", client="elsewhere", now=later)
    actions = [r[0] for r in db.read().execute("SELECT action FROM audit_log")]
    assert actions.count("login-failed") == 5 and "login-locked" in actions
    assert actions[-1] == "login"


def test_unknown_user_and_wrong_password_read_the_same(db):
    accounts.add_user(db, "ed", "a long password")
    messages = set()
    for name in ("ed", "nobody"):
        with pytest.raises(accounts.LoginRefused) as refused:
            accounts.login(db, name, "wrong password", client=name)
        messages.add(str(refused.value))
    assert len(messages) == 1
