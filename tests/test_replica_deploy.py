"""A deployment on more than one machine (issue 33, item 4), each part a process of its own on
this machine: a primary (`masthead serve`, taking comments, replicating with Litestream), a
static copy of the site (`masthead build`'s files behind a plain static web server, as a CDN or
nginx serves them, `api_url` pointing at the primary), and a standby that restores the replica
and takes over when the primary dies (kill -9).

It prints its figures (docs/performance.md quotes them): the seconds from a dead primary to the
standby answering /healthz, the comments lost, and the seconds from a comment's approval to its
appearance in the exported page (this branch rebuilds with `masthead build`, run once the
comment is approved; no `build --watch` here)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import httpx
import pytest

from masthead.accounts import service as accounts
from masthead.store.db import Database

from support.client import get
from support.replica import (
    comment_bodies,
    free_port,
    in_step,
    integrity,
    replica_env,
    replica_toml,
    serve,
)
from support.sites import post, write_site
from support.wait import CEILING, until

pytestmark = [pytest.mark.server, pytest.mark.slow]

SYNC = 1.0
POST = {"posts/a.md": post("Harbour lights", "2024-03-01", "Hi.")}


def masthead(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "masthead", *args],
        capture_output=True,
        text=True,
        env=replica_env(),
        timeout=600,
    )


@pytest.mark.xdist_group("replica-under-load")  # with the kill -9 tests, one at a time
def test_primary_static_copy_and_standby_as_separate_processes(tmp_path):
    replica = tmp_path / "replica"
    port = free_port()
    primary_url = f"http://127.0.0.1:{port}"
    settings = replica_toml((replica / "site").as_uri(), SYNC) + ""
    settings = settings.replace(
        "[replica]", f'api_url = "{primary_url}"\nallowed_origins = ["{primary_url}"]\n\n[replica]'
    )
    primary = tmp_path / "primary"
    write_site(primary, POST, settings)
    db = Database(primary / ".masthead" / "site.db", checkpoints=False)
    accounts.add_user(db, "ed", "a long password", role="admin")
    token = accounts.new_token(db, "ed")
    db.close()
    out = tmp_path / "out"
    static_port = free_port()
    static = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(static_port), "--bind", "127.0.0.1",
         "--directory", str(out)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    page = f"http://127.0.0.1:{static_port}/posts/a/"
    acks: list[tuple[str, float]] = []
    try:
        with serve(primary, "--port", str(port), "--workers", "2") as served:
            http = httpx.Client(headers={"Origin": primary_url}, timeout=60)
            first = http.post(primary_url + "/api/comments", json={
                "post": "/posts/a/", "name": "Ann", "email": "ann@example.org",
                "body": "Seen on the static copy."}).json()  # fmt: skip
            in_step(served)
            out.mkdir()
            base = f"http://127.0.0.1:{static_port}"
            # --jobs 1: a site of one post; each build worker would import the app (a second)
            built = masthead("build", str(primary), str(out), "--base-url", base, "--jobs", "1")
            assert built.returncode == 0, built.stderr
            until(lambda: get(page, timeout=60).status_code == 200, what="static copy",
                  retry=httpx.TransportError)  # fmt: skip
            assert (
                "Seen on the static copy." not in httpx.get(page, timeout=CEILING).text
            )  # pending: not shown

            # an editor approves it: the exported page shows it after the rebuild
            approved_at = time.time()
            done = http.post(
                f"{primary_url}/api/admin/comments/{first['id']}",
                json={"action": "approve"},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert done.status_code == 200, done.text
            rebuilt = masthead("build", str(primary), str(out), "--base-url", base, "--jobs", "1")
            assert rebuilt.returncode == 0, rebuilt.stderr
            until(lambda: "Seen on the static copy." in get(page, timeout=60).text,
                  what="the approved comment on the static copy")  # fmt: skip
            to_static = time.time() - approved_at

            # readers go on commenting until the primary's machine dies
            stop = threading.Event()

            def reader(n: int) -> None:
                with httpx.Client(headers={"Origin": primary_url}, timeout=CEILING) as client:
                    i = 0
                    while not stop.is_set():
                        body = f"reader {n} comment {i}"
                        try:
                            sent = client.post(primary_url + "/api/comments", json={
                                "post": "/posts/a/", "name": "Bo", "email": "bo@example.org",
                                "body": body})  # fmt: skip
                        except httpx.HTTPError:
                            return
                        if sent.status_code == 201:
                            acks.append((body, time.time()))
                        i += 1

            readers = [threading.Thread(target=reader, args=(n,)) for n in range(4)]
            for thread in readers:
                thread.start()
            until(lambda: len(acks) >= 200, what="200 comments taken")
            served.kill9()
            stop.set()
            for thread in readers:
                thread.join()
        dead_at = served.killed_at

        # the standby takes over: the replica restored, then served (replicating anew)
        standby = tmp_path / "standby"
        write_site(standby, POST, settings)
        restored = masthead("restore", str(standby), "--from-replica", "--yes")
        assert restored.returncode == 0, restored.stderr
        anew = replica_env(MASTHEAD_REPLICA_URL=(replica / "site-2").as_uri())
        with serve(standby, "--port", str(port), "--workers", "2", env=anew) as second:
            taken_over = time.time() - dead_at
            assert second.health()["status"] == "ok"
            assert httpx.get(page, timeout=60).status_code == 200  # the static copy never left
            text = httpx.get(primary_url + "/posts/a/", timeout=60).text
            assert "Seen on the static copy." in text
            assert second.stop() == 0
    finally:
        static.terminate()
        static.wait(60)
    database = standby / ".masthead" / "site.db"
    assert integrity(database) == "ok"
    bodies = comment_bodies(database)
    lost = [(body, at) for body, at in acks if body not in bodies]
    late = [body for body, at in lost if at < dead_at - SYNC]
    oldest = max((dead_at - at for _, at in lost), default=0.0)
    print(
        f"\ntake-over {taken_over:.1f} s (restore + start); {len(lost)} of {len(acks)} "
        f"comments lost, the oldest acknowledged {oldest:.2f} s before the kill; "
        f"approval to static page {to_static:.1f} s (masthead build after the approval)"
    )
    assert not late, f"{len(late)} comments acknowledged over {SYNC} s before the kill lost"
