"""Replication with Litestream ([replica]): the settings and their errors, masthead leaving
checkpoints to Litestream, `masthead serve` running one Litestream among its workers and
reporting it (/healthz, the dashboard), a replica that cannot be reached, credentials kept
out of everything masthead prints (moto's S3 server on 127.0.0.1, and file replicas)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from masthead.accounts import service as accounts
from masthead.config import load_site
from masthead.replica import litestream, reach, state
from masthead.store.db import Database, vacuum

from support.cli import in_process, one_line_error
from support.replica import (
    ACCESS_KEY,
    SECRET_KEY,
    comment_bodies,
    in_step,
    moto_s3,
    replica_env,
    replica_toml,
    serve,
)
from support.sites import post, write_site
from support.wait import CEILING, Timeout, until

PASSWORD = "a long password"  # pragma: allowlist secret
POST = {"posts/a.md": post("Harbour lights", "2024-03-01", "Hi.")}


def run_masthead(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "masthead", *args],
        capture_output=True,
        text=True,
        env=env or replica_env(),
        timeout=300,
    )


def replica_command(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """`masthead ARGS` in this process (`support.cli.in_process`), with the environment of
    `replica_env`: for `restore` and `replica status`, which end by themselves (a `serve` that
    did not refuse would go on serving: those run as processes, `run_masthead`)."""
    return in_process(*args, env={**replica_env(), "AWS_CA_BUNDLE": None})


def write_raw(root: Path, toml: str) -> None:
    """A site folder whose settings may be wrong (write_site would load them)."""
    (root / "content" / "posts").mkdir(parents=True)
    (root / "content" / "posts" / "a.md").write_text(POST["posts/a.md"], encoding="utf-8")
    (root / "masthead.toml").write_text(toml, encoding="utf-8")


# --- settings --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "env", "key"),
    [
        ('url = "ftp://example.com/x"', {}, "replica.url"),
        ('url = "file://relative/path"', {}, "replica.url"),
        ('url = "s3://bucket/db"\nsync_interval = "fast"', {}, "replica.sync_interval"),
        ('url = "s3://bucket/db"\nretention = 0', {}, "replica.retention"),
        ('url = "s3://bucket/db"\nsync_intervall = 1', {}, "replica.sync_intervall"),
        ('url = "s3://bucket/db"', {"MASTHEAD_REPLICA_SYNC_INTERVAL": "soon"},
         "MASTHEAD_REPLICA_SYNC_INTERVAL"),
        ("", {"MASTHEAD_REPLICA_URL": "http://example.com/db"}, "MASTHEAD_REPLICA_URL"),
    ],
)  # fmt: skip
def test_a_bad_replica_setting_stops_serve_with_one_line_naming_the_key(tmp_path, table, env, key):
    write_raw(tmp_path / "site", f'title = "T"\n[replica]\n{table}\n')
    done = run_masthead("serve", str(tmp_path / "site"), "--port", "0", env=replica_env(**env))
    one_line_error(done, key)


def test_a_password_in_the_replica_url_is_refused_and_never_shown(tmp_path):
    url = f"sftp://backup:{PASSWORD.replace(' ', '-')}@files.example.com/site"
    write_raw(tmp_path / "site", f'title = "T"\n[replica]\nurl = "{url}"\n')
    done = run_masthead("serve", str(tmp_path / "site"), "--port", "0")
    line = one_line_error(done, "replica.url", "environment")
    assert "a-long-password" not in line and "***@files.example.com" in line


def test_replica_variables_override_the_table_key_by_key(tmp_path, monkeypatch):
    write_site(
        tmp_path / "site", POST, 'title = "T"\n[replica]\nurl = "s3://a/b"\nretention = 48\n'
    )
    monkeypatch.setenv("MASTHEAD_REPLICA_SYNC_INTERVAL", "0.5")
    monkeypatch.setenv("MASTHEAD_REPLICA_URL", "file:///srv/replica")
    replica = load_site(tmp_path / "site").settings.replica
    assert (replica.url, replica.sync_interval, replica.retention) == (
        "file:///srv/replica",
        0.5,
        48,
    )
    assert load_site(tmp_path / "site").replicated


def test_litestream_configuration_follows_the_settings(tmp_path):
    site = write_site(
        tmp_path / "site",
        POST,
        'title = "T"\n[replica]\nurl = "s3://bkt/db?endpoint=http://127.0.0.1:9"\n'
        "sync_interval = 0.25\nretention = 72\n",
    )
    import yaml

    config = yaml.safe_load(litestream.config_text(site, tmp_path / "c.sock"))
    db = config["dbs"][0]
    assert db["path"] == str(site.database_path)
    assert db["replica"] == {
        "url": "s3://bkt/db?endpoint=http://127.0.0.1:9",
        "sync-interval": "62ms",  # a quarter of the interval: the upload's own time fits in it
    }
    assert db["monitor-interval"] == "50ms"  # a tenth, 50 ms at least
    assert config["snapshot"] == {"interval": "72h", "retention": "72h"}
    assert "secret" not in json.dumps(config).lower() and "key" not in json.dumps(db).lower()


# --- credentials out of what masthead prints ------------------------------------------------


def test_redact_hides_credential_variables_and_url_passwords():
    env = {"AWS_SECRET_ACCESS_KEY": SECRET_KEY, "AWS_ACCESS_KEY_ID": ACCESS_KEY, "HOME": "/root"}
    url = f"sftp://u:{SECRET_KEY}x@h/p"  # pragma: allowlist secret
    text = f"Error: auth {SECRET_KEY} for {ACCESS_KEY} at {url} in /root"
    out = litestream.redact(text, env)
    assert SECRET_KEY not in out and ACCESS_KEY not in out
    assert "sftp://***@h/p" in out and "/root" in out  # only credentials go
    dav = "webdavs://me:pw@dav.example/x"  # pragma: allowlist secret
    assert litestream.redacted_url(dav) == "webdavs://***@dav.example/x"


# --- masthead leaves checkpoints to Litestream ---------------------------------------------


def wal_pages(database: Path) -> int:
    """Pages in the WAL file: after a checkpoint the next writer starts the WAL again from its
    beginning, so only a WAL never checkpointed holds every frame ever written
    (https://www.sqlite.org/wal.html#checkpointing)."""
    return database.with_name(database.name + "-wal").stat().st_size // 4096


def write_many(db: Database, rounds: int = 600) -> None:
    """Enough writes for several of SQLite's automatic checkpoints (every 1000 pages)."""
    for i in range(rounds):
        with db.write() as conn:
            conn.execute(
                "INSERT INTO site_state (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (f"filler-{i % 50}", os.urandom(6000).hex()),
            )


@pytest.mark.parametrize("replicated", [False, True])
def test_a_replicated_database_is_never_checkpointed_by_masthead(tmp_path, replicated):
    path = tmp_path / "site.db"
    db = Database(path, checkpoints=not replicated)
    keep = sqlite3.connect(path)  # a second connection, as Litestream holds: no close checkpoint
    keep.execute("SELECT 1 FROM site_state").fetchall()
    try:
        write_many(db)
        db.read().execute("SELECT count(*) FROM site_state").fetchone()
        if replicated:  # every frame still there: only Litestream may fold the WAL back
            assert wal_pages(path) > 1500
        else:  # SQLite's automatic checkpoints (every 1000 pages) ran
            assert wal_pages(path) <= 1100
    finally:
        db.close()
        keep.close()


def test_the_search_log_and_vacuum_leave_checkpoints_to_litestream(tmp_path):
    from masthead.store.search_log import Writer

    path = tmp_path / "site.db"
    Database(path, checkpoints=False).close()
    keep = sqlite3.connect(path)
    keep.execute("SELECT 1 FROM site_state").fetchall()
    writer = Writer(path, 5000, checkpoints=False)
    try:
        for i in range(600):
            with writer.transaction() as conn:
                conn.execute(
                    "INSERT INTO site_state (key, value) VALUES (?, ?) ON CONFLICT(key) "
                    "DO UPDATE SET value = excluded.value",
                    (f"log-{i % 40}", os.urandom(6000).hex()),
                )
        written = wal_pages(path)
        assert written > 1500
        vacuum(path, checkpoint=False)
        assert wal_pages(path) >= written  # no TRUNCATE checkpoint after VACUUM
    finally:
        writer.close()
        keep.close()


# --- serve: one Litestream, its state, a clean stop ----------------------------------------


def litestreams_of(site: Path) -> list[int]:
    """The pids of `litestream replicate` processes replicating `site`'s database."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
            if len(cmd) > 1 and cmd[0].endswith(b"litestream") and cmd[1] == b"replicate":
                config = cmd[cmd.index(b"-config") + 1].decode()
                if str(site / ".masthead" / "site.db") in Path(config).read_text():
                    found.append(int(proc.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


def comment(url: str, body: str, client: httpx.Client | None = None) -> httpx.Response:
    sender = client or httpx
    return sender.post(
        url + "api/comments",
        json={"post": "/posts/a/", "name": "Ann", "email": "ann@example.org", "body": body},
        headers={"Origin": url.rstrip("/")},
        timeout=60,
    )


@pytest.mark.server
@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_serve_runs_one_litestream_among_its_workers_and_stops_it_cleanly(tmp_path):
    replica = tmp_path / "replica"
    site = tmp_path / "site"
    write_site(site, POST, replica_toml(replica.as_uri()))
    with serve(site, "--workers", "2") as served:
        until(lambda: len(litestreams_of(site)) == 1, what="one litestream")
        assert comment(served.url, "Replicated words.").status_code == 201
        report = in_step(served)
        assert report["url"] == replica.as_uri()
        assert isinstance(report["age"], float) and report["replicated_at"]
        first = litestreams_of(site)
        # the worker that runs Litestream dies: its Litestream goes with it, another takes over
        owner = json.loads(state.path_for(site / ".masthead" / "site.db").read_text())["pid"]
        assert owner == first[0]
        worker = int(Path(f"/proc/{owner}/stat").read_text().split()[3])  # its parent
        os.kill(worker, signal.SIGKILL)
        until(lambda: first[0] not in litestreams_of(site), what="the orphan litestream ended")
        until(lambda: len(litestreams_of(site)) == 1, what="another worker runs litestream")
        assert comment(served.url, "After the take-over.").status_code == 201
        in_step(served)
        # granian says "Started worker-N" once a worker is up (and "... runtime-M" per runtime)
        started = re.compile(r"Started worker-\d+$", re.MULTILINE)
        until(lambda: len(started.findall(served.output())) == 3, what="the new worker up")
        assert served.stop() == 0
    assert litestreams_of(site) == []
    saved = state.load(site / ".masthead" / "site.db")
    assert saved is not None and saved.state == "stopped"
    assert "Traceback" not in served.output()


@pytest.mark.server
@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_a_comment_is_acknowledged_once_it_is_on_the_replica(tmp_path):
    """A sync interval of 10 minutes: Litestream's own uploads come every 150 s, so only the
    acknowledgement's wait (replica/durable.py) can put the comment on the replica before the
    answer. A restore right after the 201 holds it."""
    replica = tmp_path / "replica"
    site = tmp_path / "site"
    write_site(site, POST, replica_toml(replica.as_uri(), sync_interval=600))
    with serve(site) as served:

        def replicating() -> bool:
            return served.health()["replica"]["status"] == "ok"  # type: ignore[index]

        until(replicating, what="Litestream reports")
        answer = comment(served.url, "Safe before the answer.")
        assert answer.status_code == 201, answer.text
        restored = tmp_path / "restored"
        write_site(restored, POST, replica_toml(replica.as_uri(), sync_interval=600))
        done = replica_command("restore", restored, "--from-replica", "--yes")
        assert done.returncode == 0, done.stderr
        assert "Safe before the answer." in comment_bodies(restored / ".masthead" / "site.db")


@pytest.mark.server
@pytest.mark.slow  # waits out Litestream's retries and the lag's grace: about 20 s
def test_an_unreachable_replica_leaves_the_site_serving_and_the_dashboard_says_since_when(
    tmp_path,
):
    site = tmp_path / "site"
    with moto_s3(tmp_path) as moto:
        write_site(site, POST, replica_toml(moto.url("site")))
        db = Database(site / ".masthead" / "site.db")
        accounts.add_user(db, "ed", PASSWORD, role="admin")
        db.close()
        with serve(site) as served:
            assert comment(served.url, "Before the outage.").status_code == 201
            in_step(served)
            moto.stop()  # the store goes away
            lost_at = time.time()
            for i in range(3):  # the site goes on taking comments and serving pages
                assert comment(served.url, f"During the outage {i}.").status_code == 201
            assert httpx.get(served.url + "posts/a/", timeout=60).status_code == 200

            seen: list[object] = []

            def behind() -> dict[str, object] | None:
                replica = served.health()["replica"]
                assert isinstance(replica, dict)
                seen[:] = [replica]
                return replica if replica["status"] == "behind" else None

            try:
                report = until(behind, what="/healthz says the replica is behind")
            except Timeout as exc:
                raise AssertionError(f"{exc}; the last report: {seen}") from None
            since = report["behind_since"]
            assert isinstance(since, float) and lost_at - 5 <= since <= time.time(), report
            # the replica lacks what was written, or Litestream, stuck on the store, says nothing
            assert report["position"] < report["txid"] or report["error"], report
            with httpx.Client(
                base_url=served.url, follow_redirects=False, timeout=CEILING
            ) as client:
                sign_in(client)
                page = client.get("/guanli/").text
            said = re.search(r'Behind since <time datetime="([^"]+)">', page)
            assert said, page
            assert abs(datetime.fromisoformat(said.group(1)).timestamp() - since) < 1
            for text in (page, json.dumps(served.health()), served.output()):
                assert SECRET_KEY not in text and ACCESS_KEY not in text
            assert served.stop() == 0  # stopping does not hang on the unreachable store


def sign_in(client: httpx.Client) -> None:
    form = client.get("/guanli/login").text
    csrf = re.search(r'name="csrf" value="([^"]+)"', form)
    assert csrf, form
    done = client.post(
        "/guanli/login",
        data={"username": "ed", "password": PASSWORD, "csrf": csrf.group(1)},
        headers={"Origin": str(client.base_url).rstrip("/")},
    )
    assert done.status_code == 303, done.text


@pytest.mark.server
@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_replica_status_and_errors_never_show_credentials(tmp_path):
    site = tmp_path / "site"
    with moto_s3(tmp_path) as moto:
        write_site(site, POST, replica_toml(moto.url("site")))
        with serve(site) as served:
            assert comment(served.url, "Hello.").status_code == 201
            in_step(served)
            status = replica_command("replica", "status", site)
            assert status.returncode == 0, status.stderr
            assert "in step" in status.stdout and "transaction" in status.stdout
            assert served.stop() == 0
        # a bucket that does not exist, and a store that is not there: errors, one line each
        nowhere = "s3://masthead-replica/site?endpoint=http://127.0.0.1:9&region=us-east-1"
        for url in (moto.url("site").replace("masthead-replica", "no-such-bucket"), nowhere):
            (site / "masthead.toml").write_text(replica_toml(url))
            done = replica_command("restore", site, "--from-replica", "--yes")
            line = one_line_error(done, "restore from")
            assert SECRET_KEY not in line and ACCESS_KEY not in line
            status = replica_command("replica", "status", site)
            line = one_line_error(status, "read the replica")
            assert SECRET_KEY not in line and ACCESS_KEY not in line
        # the store that is not there is said at once, not after Litestream's retries
        assert "its store cannot be reached (127.0.0.1:9: connection refused)" in line
        assert SECRET_KEY not in served.output() and ACCESS_KEY not in served.output()


# --- a store that cannot be reached -------------------------------------------------------


def test_the_store_an_s3_url_names_is_the_one_litestream_connects_to():
    assert reach.endpoint("s3://b/site?endpoint=http://127.0.0.1:9000&region=x") == (
        "127.0.0.1",
        9000,
    )
    assert reach.endpoint("s3://b/site?endpoint=minio.example:9000") == ("minio.example", 9000)
    assert reach.endpoint("s3://b/site?endpoint=https://r2.example") == ("r2.example", 443)
    assert reach.endpoint("s3://b/site?region=eu-west-1") == ("s3.eu-west-1.amazonaws.com", 443)
    assert reach.endpoint("s3://b/site") == ("s3.amazonaws.com", 443)
    assert reach.endpoint("file:///var/replica") is None
    assert reach.endpoint("s3://b/site?endpoint=http://host:port") is None


def test_a_store_that_listens_is_reachable_and_one_that_does_not_is_said_at_once(monkeypatch):
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        port = listening.getsockname()[1]
        assert reach.unreachable(f"s3://b/site?endpoint=http://127.0.0.1:{port}") is None
    # the same port, closed now
    why = reach.unreachable(f"s3://b/site?endpoint=http://127.0.0.1:{port}")
    assert why == f"127.0.0.1:{port}: connection refused"
    assert reach.unreachable("file:///nowhere/at/all") is None


def test_a_store_behind_a_proxy_is_left_to_litestream(monkeypatch):
    """Litestream honours HTTPS_PROXY; a direct connection would fail where it succeeds."""
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    assert reach.unreachable("s3://b/site?endpoint=http://192.0.2.1:9000", timeout=0.1) is None


# --- the commands' refusals ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ((), "give either BACKUP or --from-replica"),
        (("backup.db", "--from-replica"), "give either BACKUP or --from-replica"),
        (("backup.db", "--timestamp", "2026-01-01T00:00:00Z"), "--timestamp goes with"),
        (("--from-replica", "--timestamp", "yesterday"), "not an ISO 8601 time"),
    ],
)
def test_restore_from_replica_refuses_what_it_cannot_do_in_one_line(tmp_path, args, said):
    site = tmp_path / "site"
    write_site(site, POST, replica_toml((tmp_path / "replica").as_uri()))
    one_line_error(replica_command("restore", site, *args), said)


def test_replica_status_and_restore_on_a_site_without_a_replica(tmp_path):
    site = tmp_path / "site"
    write_site(site, POST, 'title = "T"\n')
    one_line_error(replica_command("replica", "status", site), "no [replica] url is set")
    one_line_error(replica_command("restore", site, "--from-replica"), "no [replica] url")


def test_an_empty_replica_restores_nothing_and_says_why(tmp_path):
    site = tmp_path / "site"
    write_site(site, POST, replica_toml((tmp_path / "replica").as_uri()))
    done = replica_command("restore", site, "--from-replica", "--yes")
    one_line_error(done, "cannot restore from file://")
    assert not (site / ".masthead" / "site.db.from-replica").exists()


# --- the report and how it is shown ---------------------------------------------------------


def test_a_lag_shorter_than_the_grace_is_not_behind_and_an_old_report_says_nothing():
    start = state.Report(url="s3://b/x", sync_interval=1.0, state="starting", checked_at=100.0)
    ok = start.observe(7, 7, 100.0)
    assert state.summary(ok, "s3://b/x", 1.0, 101.0)["status"] == "ok"
    lagging = ok.observe(9, 7, 102.0).observe(10, 7, 104.0)
    assert lagging.behind_since == 102.0 and lagging.replicated_at == 100.0
    assert state.summary(lagging, "s3://b/x", 1.0, 104.0)["status"] == "ok"  # within 5 s
    late = lagging.observe(12, 7, 108.0)
    summary = state.summary(late, "s3://b/x", 1.0, 108.0)
    assert summary["status"] == "behind" and summary["behind_since"] == 102.0
    assert summary["position"] == 7 and summary["txid"] == 12 and summary["age"] == 8.0
    caught_up = late.observe(12, 12, 109.0)
    assert state.summary(caught_up, "s3://b/x", 1.0, 109.0)["status"] == "ok"
    assert caught_up.behind_since is None
    assert state.summary(caught_up, "s3://b/x", 1.0, 109.0 + state.STALE + 1)["status"] == (
        "unknown"
    )
    assert state.summary(None, "s3://b/x", 1.0, 0.0)["status"] == "unknown"


def test_a_litestream_that_stops_answering_counts_as_behind():
    """Stuck on an unreachable store, Litestream holds the database's position and its control
    socket stops answering: the report goes on (not "unknown") and says behind."""
    report = state.Report(url="s3://b/x", sync_interval=1.0, state="starting", checked_at=100.0)
    report = report.observe(7, 7, 100.0).unanswered(101.0, "no answer")
    assert state.summary(report, "s3://b/x", 1.0, 102.0)["status"] == "ok"  # within the grace
    report = report.unanswered(140.0, "no answer")
    summary = state.summary(report, "s3://b/x", 1.0, 140.0)
    assert summary["status"] == "behind" and summary["behind_since"] == 101.0
    assert summary["error"] == "no answer"
    assert report.observe(9, 9, 141.0).behind_since is None  # it answers again, in step


def test_a_replica_that_keeps_up_with_steady_writes_is_never_behind():
    """Writes all the time: each poll sees the newest transaction missing, but the one missing
    at the poll before has arrived. In step for as long as it goes on, with a true age."""
    report = state.Report(url="s3://b/x", sync_interval=1.0, state="starting", checked_at=100.0)
    report = report.observe(10, 10, 100.0)
    for second in range(1, 60):
        at = 100.0 + second
        report = report.observe(10 + 5 * second, 10 + 5 * (second - 1), at)
        summary = state.summary(report, "s3://b/x", 1.0, at)
        assert summary["status"] == "ok", (second, summary)
        assert summary["age"] == 1.0  # the replica holds the database as of the poll before
    stalled = report.observe(400, 10 + 5 * 58, 170.0)  # nothing new arrived for 11 s
    assert state.summary(stalled, "s3://b/x", 1.0, 170.0)["status"] == "behind"


def overview(site_root: Path, report: state.Report) -> str:
    from support.guanli import signed_client

    site = load_site(site_root)
    state.save(site.database_path, report)
    client = signed_client(site, "ed")
    try:
        return str(client.get("/guanli/").text)
    finally:
        client.__exit__(None, None, None)


def test_the_overview_says_in_step_or_behind_since_when_and_escapes_what_litestream_said(
    tmp_path,
):
    from support.guanli import PASSWORD as GUANLI_PASSWORD

    site = write_site(tmp_path / "site", POST, replica_toml((tmp_path / "r").as_uri()))
    db = Database(site.database_path, checkpoints=False)
    accounts.add_user(db, "ed", GUANLI_PASSWORD, role="admin")
    db.close()
    now = time.time()
    fine = state.Report(url="file:///r", sync_interval=1.0, state="replicating",
                        checked_at=now, txid=9, replicated_txid=9, replicated_at=now)  # fmt: skip
    page = overview(site.root, fine)
    assert "In step: every change is replicated (transaction 9" in page
    behind = state.Report(url="file:///r", sync_interval=1.0, state="replicating",
                          checked_at=now, txid=12, replicated_txid=9, replicated_at=now - 60,
                          behind_since=now - 59, error="<b>dial tcp: refused</b>")  # fmt: skip
    page = overview(site.root, behind)
    assert re.search(r"Behind since <time datetime=\"[^\"]+\">[^<]+</time>: the replica holds "
                     r"transaction 9 \(of 12\)", page), page  # fmt: skip
    assert "&lt;b&gt;dial tcp: refused&lt;/b&gt;" in page and "<b>dial" not in page
    gone = state.Report(url="file:///r", sync_interval=1.0, state="replicating",
                        checked_at=now - 600)  # fmt: skip
    assert "no server runs Litestream for this site now" in overview(site.root, gone)
