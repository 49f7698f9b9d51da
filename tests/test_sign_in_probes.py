"""Sign-in gives nothing away to a prober (issue 29, item 8): D2, an unknown name costs what a
known one costs (it was 2-96 ms against 0.5-2.3 s, so names could be found and then locked
out); D8, of 30 parallel wrong passwords for one account, at most `MAX_FAILURES` are checked
(6 were: the lock was read before any failure was written).

Real argon2id hashes, a real SQLite file opened by several `Database` objects (as the server's
worker processes each open it), threads for parallel attempts."""

from __future__ import annotations

import contextlib
import shutil
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from masthead.accounts import service as accounts
from masthead.store.db import Database

PASSWORD = "a long password"  # pragma: allowlist secret


@pytest.fixture(scope="module")
def with_mei(tmp_path_factory) -> Path:
    """A database with the editor mei (password PASSWORD), made once a module: each test copies
    it instead of hashing her password with argon2 again."""
    path = tmp_path_factory.mktemp("mei") / "site.db"
    database = Database(path)
    accounts.add_user(database, "mei", PASSWORD)
    database.close()
    return path


@pytest.fixture
def db(tmp_path, with_mei):
    """A copy of `with_mei`'s database."""
    shutil.copyfile(with_mei, tmp_path / "site.db")
    database = Database(tmp_path / "site.db")
    yield database
    database.close()


def cpu_of(db: Database, name: str, password: str, client: str) -> float:
    """The process CPU seconds one sign-in attempt takes (argon2 may use threads of its own)."""
    started = time.process_time()
    with contextlib.suppress(accounts.LoginRefused):
        accounts.login(db, name, password, client=client, now=1e9)
    return time.process_time() - started


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_an_unknown_name_costs_what_a_known_one_does(db):
    """CPU time, known and unknown names side by side in alternating rounds: a ratio, not a
    budget. Without the dummy check the unknown name costs about 1% of the known one."""
    known, unknown = [], []
    for i in range(4):  # 4 wrong passwords: one short of the lock
        known.append(cpu_of(db, "mei", "wrong password", f"k{i}"))
        unknown.append(cpu_of(db, f"nobody{i}", PASSWORD, f"u{i}"))
    ratio = statistics.median(unknown) / statistics.median(known)
    assert ratio > 0.5, (known, unknown)


def test_an_unknown_name_is_refused_with_the_same_words(db):
    words = []
    for name in ("mei", "nobody"):
        with pytest.raises(accounts.LoginRefused) as refused:
            accounts.login(db, name, "wrong password", client="c", now=1e9)
        words.append(str(refused.value))
    assert words[0] == words[1] == "Wrong user name or password."


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_parallel_wrong_passwords_check_at_most_the_limit(db, tmp_path):
    """30 attempts at once, from 6 connections to the file (as 6 worker processes would have):
    `MAX_FAILURES` passwords are checked, the rest are told the account is locked."""
    dbs = [Database(tmp_path / "site.db") for _ in range(6)]

    def attempt(i: int) -> str:
        try:
            accounts.login(dbs[i % 6], "mei", "wrong password", client=f"c{i}", now=1e9)
        except accounts.LoginRefused as exc:
            return "locked" if exc.retry_after else "wrong"
        return "in"

    try:
        with ThreadPoolExecutor(30) as pool:
            outcomes = list(pool.map(attempt, range(30)))
    finally:
        for d in dbs:
            d.close()
    assert outcomes.count("wrong") == accounts.MAX_FAILURES, outcomes
    assert outcomes.count("locked") == 30 - accounts.MAX_FAILURES
    failed = db.read().execute("SELECT count(*) FROM audit_log WHERE action = 'login-failed'")
    assert failed.fetchone()[0] == accounts.MAX_FAILURES


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_a_good_password_takes_back_its_counted_attempt(db):
    """Each attempt is counted before its check; a right password takes that back, so signing in
    now and then never locks a client out."""
    for i in range(accounts.MAX_FAILURES + 3):
        accounts.login(db, "mei", PASSWORD, client="same", now=1e9 + i)
    left = db.read().execute("SELECT count(*) FROM login_failures").fetchone()[0]
    assert left == 0
