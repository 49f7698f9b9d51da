"""Restoring from the replica (item 3 of issue 33), against moto's S3 server and a file
replica: 20 clients post comments for 30 s to 2 workers, the whole server is killed with
SIGKILL, and a restore into a new folder holds every comment acknowledged more than the sync
interval before the kill; a bulk action on 100 comments is undone by a point-in-time restore.

Each test prints its figures (comments acknowledged, lost, the age of the newest one lost):
docs/performance.md quotes them."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from masthead.accounts import service as accounts
from masthead.store.db import Database

from support.cli import in_process
from support.replica import (
    comment_bodies,
    in_step,
    integrity,
    moto_s3,
    replica_env,
    replica_toml,
    serve,
)
from support.sites import post, write_site
from support.wait import CEILING, until

pytestmark = [pytest.mark.server, pytest.mark.slow]

SYNC = 1.0  # seconds: [replica] sync_interval, the default
CLIENTS = 20
SECONDS = 30.0
POST = {"posts/a.md": post("Harbour lights", "2024-03-01", "Hi.")}


@contextmanager
def replica_url(tmp_path: Path, store: str, name: str = "site") -> Iterator[str]:
    """A replica URL: in moto's S3 bucket, or a folder (file://)."""
    if store == "file":
        yield (tmp_path / "replica" / name).as_uri()
        return
    with moto_s3(tmp_path) as moto:
        yield moto.url(name)


def masthead(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """`masthead restore ARGS` in this process (`support.cli.in_process`: no Python start-up
    and import of the app), with the environment of `replica_env`."""
    return in_process(*args, env={**replica_env(), "AWS_CA_BUNDLE": None})


def send(url: str, body: str, client: httpx.Client) -> bool:
    sent = client.post(
        url + "api/comments",
        json={"post": "/posts/a/", "name": "Ann", "email": "ann@example.org", "body": body},
        headers={"Origin": url.rstrip("/")},
        timeout=60,
    )
    return sent.status_code == 201


def post_for(url: str, clients: int, seconds: float) -> list[tuple[str, float]]:
    """`clients` threads posting comments one after another for `seconds`; every comment the
    server acknowledged (201), with the time the answer came."""
    acks: list[tuple[str, float]] = []
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def client(n: int) -> None:
        with httpx.Client(timeout=CEILING) as http:
            i = 0
            while time.monotonic() < end:
                body = f"client {n} comment {i}"
                try:
                    ok = send(url, body, http)
                except httpx.HTTPError:
                    ok = False
                if ok:
                    with lock:
                        acks.append((body, time.time()))
                i += 1

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return acks


@pytest.mark.xdist_group("replica-under-load")  # one at a time: each loads both cores for 30 s
@pytest.mark.parametrize("store", ["s3", "file"])
def test_kill_9_loses_no_comment_acknowledged_a_sync_interval_before(tmp_path, store):
    with replica_url(tmp_path, store) as url:
        site = tmp_path / "site"
        write_site(site, POST, replica_toml(url, SYNC))
        with serve(site, "--workers", "2") as served:
            assert send(served.url, "first", httpx.Client(timeout=CEILING))
            in_step(served)
            acks = post_for(served.url, CLIENTS, SECONDS)
            served.kill9()  # every process of the server at once: workers and Litestream
        restored = tmp_path / "restored"
        write_site(restored, POST, replica_toml(url, SYNC))
        done = masthead("restore", restored, "--from-replica", "--yes")
        assert done.returncode == 0, done.stderr
    database = restored / ".masthead" / "site.db"
    assert integrity(database) == "ok"
    bodies = comment_bodies(database)
    due = [(body, at) for body, at in acks if at < served.killed_at - SYNC]
    missing = [body for body, _ in due if body not in bodies]
    lost = [(body, at) for body, at in acks if body not in bodies]
    oldest_lost = max((served.killed_at - at for _, at in lost), default=0.0)
    print(
        f"\n[{store}] {len(acks)} comments acknowledged in {SECONDS:g} s by {CLIENTS} clients, "
        f"{len(lost)} lost; the oldest lost was acknowledged {oldest_lost:.2f} s before the kill"
    )
    assert len(acks) > 100
    assert not missing, f"{len(missing)} acknowledged > {SYNC} s before the kill are gone"


@pytest.mark.parametrize("store", ["s3", "file"])
def test_a_point_in_time_restore_undoes_a_bulk_action_on_100_comments(tmp_path, store):
    with replica_url(tmp_path, store) as url:
        site = tmp_path / "site"
        write_site(site, POST, replica_toml(url, SYNC))
        db = Database(site / ".masthead" / "site.db", checkpoints=False)
        accounts.add_user(db, "ed", "a long password", role="admin")
        token = accounts.new_token(db, "ed")
        db.close()
        with serve(site) as served, httpx.Client(timeout=CEILING) as http:
            ids = []
            for i in range(100):
                sent = http.post(
                    served.url + "api/comments",
                    json={"post": "/posts/a/", "name": f"Reader {i}",
                          "email": f"r{i}@example.org", "body": f"Comment number {i}."},
                    headers={"Origin": served.url.rstrip("/")},
                    timeout=60,
                )  # fmt: skip
                assert sent.status_code == 201, sent.text
                ids.append(sent.json()["id"])
            database = site / ".masthead" / "site.db"
            before = comment_bodies(database)
            assert len(before) == 100 and set(before.values()) == {"pending"}
            in_step(served)
            safe = time.time()
            until(lambda: time.time() > safe + 2, what="a later second for the bulk action")
            done = http.post(
                served.url + "api/admin/comments/bulk",
                json={"action": "spam", "ids": ids},
                headers={"Authorization": f"Bearer {token}"},
                timeout=60,
            )
            assert done.json()["changed"] == 100, done.text
            bulk_at = time.time()
            assert set(comment_bodies(database).values()) == {"spam"}
            in_step(served)
            when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(bulk_at - 1))
            back = masthead("restore", site, "--from-replica", "--timestamp", when, "--yes")
            assert back.returncode == 0, back.stderr
            assert "pre-restore" in back.stdout
            assert comment_bodies(database) == before  # the 100 as they were, while serving
            assert integrity(database) == "ok"
            shown = http.get(served.url + "api/admin/comments?status=pending",
                             headers={"Authorization": f"Bearer {token}"}, timeout=60)  # fmt: skip
            assert shown.status_code == 200
