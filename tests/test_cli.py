"""The `masthead` command: init, check, index (run as a real process where it matters)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from masthead.cli import app

from conftest import post

runner = CliRunner()


def masthead(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "masthead", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200"},
        timeout=120,
    )


def test_init_creates_a_site_that_checks_clean_and_serves(tmp_path, serve):
    target = tmp_path / "mysite"
    result = runner.invoke(app, ["init", str(target)])
    assert result.exit_code == 0, result.output
    assert (target / "masthead.toml").exists()
    assert (target / "content/posts/kubelet-syncloop-pleg.zh.md").exists()
    assert 'title = "mysite"' in (target / "masthead.toml").read_text()
    checked = masthead("check", str(target))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    from masthead.config import load_site

    client = serve(load_site(target))
    assert client.get("/posts/kubelet-syncloop-pleg/").status_code == 200
    again = runner.invoke(app, ["init", str(target)])
    assert again.exit_code == 2 and "not empty" in again.output


def test_check_reports_path_line_reason_and_exit_codes(make_site):
    site = make_site(
        {
            "posts/good.md": post("Fine", "2024-03-01", body="See [x](missing.md).\n"),
            "posts/bad.md": "---\ntitle: A: B\ndate: 2024-03-01\n---\n",
            "posts/sc.md": post("Shortcode", "2024-03-01", body="{{< gist abc >}}\n"),
        }
    )
    result = masthead("check", str(site.root))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert any(
        line.startswith("content/posts/bad.md:2: invalid front matter") and "quote" in line
        for line in lines
    ), lines
    assert any(
        line.startswith("content/posts/sc.md:6: warning: unknown shortcode 'gist'")
        for line in lines
    ), lines
    assert any(
        line.startswith("content/posts/good.md:6: warning: broken link to posts/missing.md")
        for line in lines
    ), lines
    assert all(len(line) < 200 for line in lines) and len(lines) == 3, "one line per problem"
    (site.content_dir / "posts/bad.md").unlink()
    assert masthead("check", str(site.root)).returncode == 0
    assert masthead("check", "--strict", str(site.root)).returncode == 1


def test_index_is_incremental_and_full_rebuilds(make_site):
    site = make_site({f"posts/p{i}.md": post(f"P{i}", "2024-03-01") for i in range(5)})
    first = masthead("index", str(site.root))
    assert first.returncode == 0, first.stderr
    assert "5 files: 5 parsed" in first.stdout
    second = masthead("index", str(site.root))
    assert "5 files: 0 parsed, 5 unchanged" in second.stdout
    (site.content_dir / "posts/p1.md").write_text(post("P1 edited", "2024-03-01"))
    third = masthead("index", str(site.root))
    assert "5 files: 1 parsed, 4 unchanged" in third.stdout
    (site.content_dir / "posts/p2.md").unlink()
    fourth = masthead("index", str(site.root))
    assert "4 files: 0 parsed, 4 unchanged, 1 removed" in fourth.stdout
    full = masthead("index", "--full", str(site.root))
    assert "4 files: 4 parsed" in full.stdout
    (site.content_dir / "posts/p3.md").write_text("---\ntitle: A: B\ndate: 2024-03-01\n---\n")
    broken = masthead("index", str(site.root))
    assert "1 parsed, 3 unchanged, 0 removed, 1 with errors" in broken.stdout
    assert broken.stderr.count("content/posts/p3.md:2:") == 1, broken.stderr
    later = masthead("index", str(site.root))
    assert "0 parsed, 4 unchanged, 0 removed, 1 with errors" in later.stdout, "still reported"


def test_bad_settings_fail_at_start_with_the_key_named(tmp_path):
    (tmp_path / "masthead.toml").write_text('title = "x"\npost_per_page = 3\n')
    result = masthead("check", str(tmp_path))
    assert result.returncode == 2
    assert "post_per_page" in result.stderr and "Traceback" not in result.stderr
    (tmp_path / "masthead.toml").write_text('timezone = "Mars/Olympus"\n')
    result = masthead("index", str(tmp_path))
    assert result.returncode == 2 and "Mars/Olympus" in result.stderr


def test_serve_prints_the_url_it_listens_on(make_site):
    import re
    import time

    import httpx

    site = make_site({"posts/a.md": post("Served by the CLI", "2024-03-01")})
    proc = subprocess.Popen(
        [sys.executable, "-m", "masthead", "serve", str(site.root), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        m = re.search(r"at (http://127\.0\.0\.1:(\d+)/)", line)
        assert m and m.group(2) != "0", line
        deadline = time.monotonic() + 20
        while True:
            try:
                r = httpx.get(m.group(1) + "posts/a/")
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "server never answered"
                time.sleep(0.1)
        assert r.status_code == 200 and "Served by the CLI" in r.text
        busy = masthead("serve", str(site.root), "--port", m.group(2))
        assert busy.returncode == 2 and "cannot listen" in busy.stderr
    finally:
        proc.terminate()
        proc.wait(10)


def test_check_warns_about_missing_files_and_unknown_language_suffixes(make_site):
    site = make_site(
        {
            "posts/a.md": post("Pictures", "2024-03-01", cover="gone.png", body="![x](lost.svg)\n"),
            "posts/b.fr.md": post("Bonjour", "2024-03-01"),
        }
    )
    result = masthead("check", str(site.root))
    lines = result.stdout.splitlines()
    assert result.returncode == 0, "warnings only"
    assert any(
        line.startswith("content/posts/a.md:7: warning: file not found: lost.svg") for line in lines
    ), lines
    assert any("file not found: gone.png" in line for line in lines), lines
    assert any(
        line.startswith("content/posts/b.fr.md:0: warning: file suffix '.fr' looks like a language")
        for line in lines
    ), lines


def test_backup_copies_the_database_while_it_is_in_use(make_site, serve):
    import sqlite3

    site = make_site({f"posts/p{i}.md": post(f"P{i}", "2024-03-01") for i in range(5)})
    client = serve(site)  # the site is open and serving while the copy is made
    client.get("/api/search", params={"q": "p1"})
    client.app.state.search.log.flush(everything=True)  # the log is written in the background
    dest = site.root / "backups" / "copy.db"
    result = masthead("backup", str(site.root), str(dest))
    assert result.returncode == 0, result.stderr
    assert "Backed up" in result.stdout
    copy = sqlite3.connect(dest)
    assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert copy.execute("SELECT COUNT(*) FROM posts").fetchone()[0] == 5
    assert copy.execute("SELECT COUNT(*) FROM search_log").fetchone()[0] == 1
    copy.close()
    missing = masthead("backup", str(site.root / "nowhere"), str(dest))
    assert missing.returncode == 2 and "no such site folder" in missing.stderr
