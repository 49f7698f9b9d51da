"""The `masthead` command: init, check, index (run as a real process where it matters: exit
statuses, serve, file permissions, a full disk; in this process through Typer's runner,
`support.cli.in_process`, where only what a command does and says is checked)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from masthead.cli import app

from support.cli import in_process, masthead, one_line_error, run, unprivileged
from support.servers import cli_server
from support.sites import post
from support.wait import CEILING

runner = CliRunner()


def test_init_creates_a_site_that_checks_clean_and_serves(tmp_path, serve):
    target = tmp_path / "mysite"
    result = runner.invoke(app, ["init", str(target)])
    assert result.exit_code == 0, result.output
    assert (target / "masthead.toml").exists()
    assert (target / "content/posts/kubelet-syncloop-pleg.zh.md").exists()
    assert 'title = "mysite"' in (target / "masthead.toml").read_text()
    checked = in_process("check", target)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    from masthead.config import load_site

    client = serve(load_site(target))
    assert client.get("/posts/kubelet-syncloop-pleg/").status_code == 200
    again = runner.invoke(app, ["init", str(target)])
    assert again.exit_code == 2 and "not empty" in again.output


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_check_reports_path_line_reason_and_exit_codes(make_site):
    site = make_site(
        {
            "posts/good.md": post("Fine", "2024-03-01", body="See [x](missing.md).\n"),
            "posts/bad.md": "---\ntitle: A: B\ndate: 2024-03-01\n---\n",
            "posts/sc.md": post("Shortcode", "2024-03-01", body="{{< speakerdeck abc >}}\n"),
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
        line.startswith("content/posts/sc.md:6: warning: unknown shortcode 'speakerdeck'")
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
    first = in_process("index", str(site.root))
    assert first.returncode == 0, first.stderr
    assert "5 files: 5 parsed" in first.stdout
    second = in_process("index", str(site.root))
    assert "5 files: 0 parsed, 5 unchanged" in second.stdout
    (site.content_dir / "posts/p1.md").write_text(post("P1 edited", "2024-03-01"))
    third = in_process("index", str(site.root))
    assert "5 files: 1 parsed, 4 unchanged" in third.stdout
    (site.content_dir / "posts/p2.md").unlink()
    fourth = in_process("index", str(site.root))
    assert "4 files: 0 parsed, 4 unchanged, 1 removed" in fourth.stdout
    full = in_process("index", "--full", str(site.root))
    assert "4 files: 4 parsed" in full.stdout
    (site.content_dir / "posts/p3.md").write_text("---\ntitle: A: B\ndate: 2024-03-01\n---\n")
    broken = in_process("index", str(site.root))
    assert "1 parsed, 3 unchanged, 0 removed, 1 with errors" in broken.stdout
    assert broken.stderr.count("content/posts/p3.md:2:") == 1, broken.stderr
    later = in_process("index", str(site.root))
    assert "0 parsed, 4 unchanged, 0 removed, 1 with errors" in later.stdout, "still reported"


def test_bad_settings_fail_at_start_with_the_key_named(tmp_path):
    (tmp_path / "masthead.toml").write_text('title = "x"\npost_per_page = 3\n')
    result = in_process("check", tmp_path)
    assert result.returncode == 2
    assert "post_per_page" in result.stderr and "Traceback" not in result.stderr
    (tmp_path / "masthead.toml").write_text('timezone = "Mars/Olympus"\n')
    result = in_process("index", tmp_path)
    assert result.returncode == 2 and "Mars/Olympus" in result.stderr


def test_a_bad_setting_from_the_environment_names_the_variable(tmp_path, monkeypatch):
    """Not the file: the value was never in it (found by a fresh-user trial)."""
    (tmp_path / "masthead.toml").write_text('title = "x"\n')
    monkeypatch.setenv("MASTHEAD_POSTS_PER_PAGE", "abc")
    result = in_process("check", tmp_path)
    assert result.returncode == 2
    said = "MASTHEAD_POSTS_PER_PAGE (environment): must be a whole number"
    assert said in result.stderr, result.stderr


def test_serve_prints_the_url_it_listens_on(make_site):
    site = make_site({"posts/a.md": post("Served by the CLI", "2024-03-01")})
    with cli_server(str(site.root), "--workers", "1") as url:  # a worker imports the app
        port = url.rsplit(":", 1)[1].strip("/")
        assert port != "0", url
        r = httpx.get(url + "posts/a/", timeout=CEILING)
        assert r.status_code == 200 and "Served by the CLI" in r.text
        busy = masthead("serve", str(site.root), "--port", port)
        assert busy.returncode == 2 and "cannot listen" in busy.stderr


def test_check_warns_about_missing_files_and_unknown_language_suffixes(make_site):
    site = make_site(
        {
            "posts/a.md": post("Pictures", "2024-03-01", cover="gone.png", body="![x](lost.svg)\n"),
            "posts/b.fr.md": post("Bonjour", "2024-03-01"),
        }
    )
    result = in_process("check", site.root)
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
    dest.parent.mkdir()  # a missing folder is refused (tests/test_cli_trial.py)
    result = masthead("backup", str(site.root), str(dest))
    assert result.returncode == 0, result.stderr
    assert "Backed up" in result.stdout
    copy = sqlite3.connect(dest)
    assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert copy.execute("SELECT COUNT(*) FROM posts").fetchone()[0] == 5
    assert copy.execute("SELECT COUNT(*) FROM search_log").fetchone()[0] == 1
    copy.close()
    missing = in_process("backup", site.root / "nowhere", dest)
    assert missing.returncode == 2 and "no such site folder" in missing.stderr


# --- start-up and disk errors: one line naming the path and the cause, exit 2 ---------------


def test_a_read_only_database_folder_is_one_line(make_site):
    site = make_site({"posts/a.md": post("A", "2024-03-01")}, 'database = "db/site.db"\n')
    folder = site.root / "db"
    folder.mkdir()
    folder.chmod(0o555)  # a folder this user may not write (SQLite creates site.db there)
    try:
        for command in (["index"], ["serve", "--port", "0"], ["search-log"]):
            result = run(unprivileged(*command, str(site.root)))
            one_line_error(result, str(folder), "read-only")
    finally:
        folder.chmod(0o755)


def test_a_read_only_database_file_is_one_line(make_site):
    site = make_site({"posts/a.md": post("A", "2024-03-01")})
    assert masthead("index", str(site.root)).returncode == 0
    db = site.database_path
    assert not db.with_name(db.name + "-wal").exists(), "closed cleanly: no journal beside it"
    db.chmod(0o444)  # e.g. created by `sudo masthead index`, then served by another user
    try:
        (site.content_dir / "posts/b.md").write_text(post("B", "2024-03-02"))
        for command in (["index"], ["serve", "--port", "0"]):
            one_line_error(run(unprivileged(*command, str(site.root))), str(db), "read-only")
        # a backup of it can be made (read-only), but not into a read-only folder
        backups = site.root / "backups"
        backups.mkdir(mode=0o555)
        result = run(unprivileged("backup", str(site.root), str(backups / "copy.db")))
        one_line_error(result, str(backups / "copy.db"), "read-only")
        copy = site.root / "copy.db"
        assert run(unprivileged("backup", str(site.root), str(copy))).returncode == 0
    finally:
        db.chmod(0o644)


def test_a_database_folder_that_does_not_exist_or_cannot_be_created(make_site):
    # the database's own folder is created (.masthead/ by default), not a missing parent:
    # a `database` setting that points into a folder that does not exist is a mistake
    site = make_site({"posts/a.md": post("A", "2024-03-01")}, 'database = "nowhere/deep/x.db"\n')
    one_line_error(in_process("index", site.root), str(site.root / "nowhere"), "does not exist")
    assert not (site.root / "nowhere").exists()
    (site.root / "masthead.toml").write_text('database = "data/x.db"\n')
    assert in_process("index", site.root).returncode == 0
    assert (site.root / "data/x.db").is_file()
    # a site folder this user may not write: .masthead/ cannot be created
    (site.root / "masthead.toml").write_text("")
    site.root.chmod(0o555)
    try:
        result = run(unprivileged("index", str(site.root)))
        one_line_error(result, str(site.root / ".masthead"), "cannot create", "denied")
    finally:
        site.root.chmod(0o755)


def in_a_full_disk(folder: Path, size: str, *args: str) -> list[str]:
    """The command, run with a small tmpfs (size e.g. "512k") mounted on `folder` in a private
    mount namespace (unshare, util-linux): a real full disk (ENOSPC, SQLite's SQLITE_FULL),
    gone with the process. Root mounts directly; other users in a user namespace."""
    ns = ["--mount"] if os.geteuid() == 0 else ["--user", "--map-root-user", "--mount"]
    script = 'mount -t tmpfs -o size="$1" tmpfs "$2" && shift 2 && exec "$@"'
    cmd = [sys.executable, "-m", "masthead", *args]
    return ["unshare", *ns, "sh", "-c", script, "sh", size, str(folder), *cmd]


def test_a_full_disk_is_one_line_not_a_failed_rollback(make_site):
    words = " ".join(f"word{j}" for j in range(3000))
    site = make_site({f"posts/p{i}.md": post(f"P{i}", "2024-03-01", body=words) for i in range(30)})
    folder = site.database_path.parent
    folder.mkdir()
    probe = subprocess.run(
        in_a_full_disk(folder, "64k", "--help"), capture_output=True, text=True, timeout=60
    )
    # a full disk is a promise, never skipped: run as root (as CI does) or where user
    # namespaces are allowed (`unshare --user --map-root-user --mount` works)
    assert probe.returncode == 0, f"cannot mount a tmpfs for the test: {probe.stderr.strip()}"
    # room for the empty database (its schema), not for 1.2 MB of posts and their index
    for command in (["index"], ["serve", "--port", "0"]):
        result = run(in_a_full_disk(folder, "512k", *command, str(site.root)))
        line = one_line_error(result, str(site.database_path), "disk is full")
        assert "rollback" not in line


def test_check_and_index_print_file_names_and_link_targets_escaped(make_site):
    site = make_site(
        {
            "posts/a\x1b[31mred.md": "---\ntitle: A: B\ndate: 2024-03-01\n---\n",  # an error
            # a link target whose percent-escapes decode to BEL and a screen-clearing sequence
            "posts/b.md": post("B", "2024-03-01", body="[x](gone%07%1B%5B2J.md)\n"),
        }
    )
    checked = in_process("check", site.root)
    indexed = in_process("index", site.root)
    for result in (checked, indexed):
        printed = result.stdout + result.stderr
        assert "\x1b" not in printed and "\x07" not in printed, printed
    assert "content/posts/a\\x1b[31mred.md:2: invalid front matter" in checked.stdout
    assert "broken link to posts/gone\\x07\\x1b[2J.md" in checked.stdout
    assert "content/posts/a\\x1b[31mred.md:2:" in indexed.stderr


def test_init_where_no_site_can_be_made_is_one_line(tmp_path):
    a_file = tmp_path / "file.txt"
    a_file.write_text("keep me")
    cases = {
        a_file: "not empty (or not a folder)",
        Path("/proc/masthead-site"): "cannot create the site",  # a file system nobody writes
    }
    for target, reason in cases.items():
        result = in_process("init", target, env={"COLUMNS": "60"})  # narrow, as `run`
        one_line_error(result, str(target), reason)
    assert a_file.read_text() == "keep me"


def test_serve_refuses_a_port_out_of_range_without_a_traceback(make_site):
    site = make_site({"posts/a.md": post("A", "2024-03-01")})
    result = run([sys.executable, "-m", "masthead", "serve", str(site.root), "--port", "99999"])
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "--port" in result.stderr


def test_a_database_from_a_newer_masthead_is_one_line_and_left_as_it_was(make_site):
    """A schema newer than this code knows (a downgrade, or another install's file) is refused
    before anything is written: its tables are not the ones this code reads or migrates."""
    import sqlite3

    from masthead.store.migrations import MIGRATIONS

    site = make_site({"posts/a.md": post("A", "2024-03-01")})
    assert in_process("index", site.root).returncode == 0
    db = site.database_path
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    conn.close()
    before = db.read_bytes()
    # serve as a process: if it did not refuse, it would go on serving
    for refused in (
        in_process("index", site.root),
        masthead("serve", str(site.root), "--port", "0"),
    ):
        one_line_error(refused, str(db), "newer masthead")
    assert db.read_bytes() == before


def test_the_demo_database_is_one_per_installed_copy(tmp_path, monkeypatch):
    """Two checkouts or versions of masthead never share (and migrate) one demo database."""
    from masthead.cli import common as cli

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = cli.demo_site().database_path
    assert first.parent == tmp_path / "masthead" and first.name.startswith("demo-")
    assert cli.demo_site().database_path == first  # the same copy: the same file
    monkeypatch.setattr(cli, "__version__", "0.0.0-other")
    other_version = cli.demo_site().database_path
    monkeypatch.setattr(cli, "DEMO", tmp_path / "another-checkout" / "demo")
    other_copy = cli.demo_site().database_path
    assert len({first, other_version, other_copy}) == 3


def test_the_app_imports_without_loading_rjieba():
    """rjieba's dictionary (about 0.15 s of CPU) is loaded by a process that cuts Chinese, not
    by every process that imports the app (`serve`, `build`, `check`): content.linebreak's
    `han_words` and search.segment load it on first use."""
    code = "import sys, masthead.web.app, masthead.content.new; print('rjieba' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout) == (0, "False\n"), done.stderr
