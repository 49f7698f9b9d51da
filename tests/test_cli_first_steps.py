"""Small things a new user hit (issue 29, item 9), through the `masthead` command (in this
process, `support.cli.in_process`, where only what it does and says is checked; as a real
process where a terminal, stdin or a server's log is the point):
`masthead new "Title"` inside a site folder (the title was taken as the site), `masthead init
DIR --empty`, `admin add-user` with no terminal and no `--password-stdin` (a GetPassWarning and
"Aborted."), and the log line of a worker that does not watch under `--workers 2` (it named
"another process": it is the server's own other worker)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import httpx
import pytest

from masthead.config import load_site

from support.cli import in_process
from support.servers import healthy
from support.sites import post
from support.wait import CEILING, until


def test_new_with_one_argument_inside_a_site_takes_it_as_the_title(make_site):
    site = make_site({"posts/a.md": post("A")})
    made = in_process("new", "My first post", cwd=site.root)
    assert made.returncode == 0, made.stderr
    path = Path(made.stdout.strip())
    assert path == site.content_dir / "posts" / "my-first-post.md"
    assert 'title: "My first post"' in path.read_text(encoding="utf-8")
    named = in_process("new", site.root, "Second post", cwd=site.root.parent)
    assert named.returncode == 0 and Path(named.stdout.strip()).name == "second-post.md"


def test_new_with_one_argument_outside_a_site_says_so(tmp_path):
    made = in_process("new", "My first post", cwd=tmp_path)
    assert made.returncode == 2
    assert "not a site folder" in made.stderr and "masthead init" in made.stderr
    assert "missing argument" not in made.stderr.lower()
    many = in_process("new", "My", "first", "post", cwd=tmp_path)
    assert many.returncode == 2 and 'masthead new "My first post"' in many.stderr


def test_init_empty_makes_a_site_with_settings_and_no_sample_posts(tmp_path):
    root = tmp_path / "blog"
    made = in_process("init", root, "--empty")
    assert made.returncode == 0, made.stderr
    assert "empty site" in made.stdout
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    assert files == ["content", "content/posts", "masthead.toml"], files
    settings = tomllib.loads((root / "masthead.toml").read_text(encoding="utf-8"))
    assert settings["title"] == "blog" and "menu" not in settings  # no link to a demo page
    assert "demo" not in json.dumps(settings, ensure_ascii=False)
    site = load_site(root)
    assert set(site.languages) == {"en", "zh"}
    checked = in_process("check", root)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    written = in_process("new", "Hello", cwd=root)
    assert written.returncode == 0, written.stderr


def test_add_user_without_a_terminal_says_to_use_password_stdin(make_site):
    site = make_site({"posts/a.md": post("A")})
    done = subprocess.run(
        [sys.executable, "-m", "masthead", "admin", "add-user", str(site.root), "mei"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        start_new_session=True,  # no controlling terminal, as under cron or a CI job
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "--password-stdin" in done.stderr and "no terminal" in done.stderr
    assert "GetPassWarning" not in done.stderr and "Aborted" not in done.stderr
    piped = subprocess.run(
        [sys.executable, "-m", "masthead", "admin", "add-user", str(site.root), "mei",
         "--password-stdin"],
        input="a long password\n", capture_output=True, text=True, timeout=120,
        start_new_session=True,
    )  # fmt: skip
    assert piped.returncode == 0 and "Added mei" in piped.stdout, piped.stderr


@pytest.mark.server
@pytest.mark.parametrize("server", ["granian", "uvicorn"])
def test_the_worker_that_does_not_watch_names_its_sibling(make_site, tmp_path, server):
    site = make_site({"posts/a.md": post("A")})
    log = tmp_path / "serve.log"
    cmd = [sys.executable, "-m", "masthead", "serve", str(site.root), "--port", "0",
           "--workers", "2", "--server", server]  # fmt: skip
    with open(log, "w") as err:
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=err, text=True, start_new_session=True
        )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        url = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
        assert url, line

        def said() -> bool:
            assert proc.poll() is None, log.read_text()
            return "watches" in log.read_text()

        until(said, timeout=CEILING, what="the waiting worker's line")
        text = log.read_text()
        (waiting,) = [x for x in text.splitlines() if "watches" in x]
        assert re.search(
            r"worker \d+ of this same server watches .* worker \d+ takes over", waiting
        )
        assert "another process" not in text
        # the line comes from a worker's start, which can be before any worker listens (granian
        # binds each worker's socket then; until one does, the reserved port refuses)
        until(lambda: healthy(url[1], proc), timeout=CEILING, what="the server's answer")
        assert httpx.get(url[1] + "healthz", timeout=CEILING).status_code == 200
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(CEILING)
