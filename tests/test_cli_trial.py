"""What a fresh user met, trying masthead from the README alone (session 5): `backup` over
files a user had, `serve` without SITE inside a site, wrapped lines in a pipe, settings
appended under the last TOML table, `new --translation-of` a bundle folder, and YAML errors
reported on the wrong line. Real processes where the output's shape matters."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from masthead.cli import app
from masthead.config import load_site
from masthead.content import frontmatter
from masthead.errors import ConfigError, ContentError

from support.sites import post

runner = CliRunner()


def masthead(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the command as a real process with its output piped (not a terminal), no COLUMNS:
    what `masthead index | wc -l` or a cron job sees."""
    environ = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    return subprocess.run(
        [sys.executable, "-m", "masthead", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**environ, **env},
        timeout=120,
    )


def one_line_error(result, *expected: str) -> str:  # type: ignore[no-untyped-def]
    """Exit 2 and a single `error: ...` line on stderr containing every `expected` (a
    CompletedProcess or a CliRunner result: both have `stderr`)."""
    lines = result.stderr.splitlines()
    code = getattr(result, "returncode", getattr(result, "exit_code", None))
    assert code == 2, (code, result.stdout, result.stderr)
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for text in expected:
        assert text in lines[0], (text, lines[0])
    return lines[0]


def cli(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args))


@pytest.fixture
def indexed(make_site):  # type: ignore[no-untyped-def]
    site = make_site({"posts/a.md": post("A", "2024-03-01")})
    result = cli("index", str(site.root))
    assert result.exit_code == 0, result.output
    return site


def is_database(path: Path) -> bool:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT count(*) FROM posts").fetchone()[0] == 1
    finally:
        conn.close()


# --- 1. backup never replaces what a user had ------------------------------------------------


def test_backup_refuses_an_existing_file_and_replaces_only_a_backup_with_force(indexed):
    site = indexed
    settings = site.root / "masthead.toml"
    before = settings.read_bytes()
    for extra in ([], ["--force"]):  # a settings file is never replaced, even with --force
        result = cli("backup", str(site.root), str(settings), *extra)
        reason = "not an SQLite database" if extra else "exists already"
        one_line_error(result, f"error: {settings}: ", reason)
        assert settings.read_bytes() == before
    earlier = site.root / "earlier.db"
    assert cli("backup", str(site.root), str(earlier)).exit_code == 0
    assert is_database(earlier)
    stamp = earlier.stat().st_mtime_ns
    one_line_error(cli("backup", str(site.root), str(earlier)), "exists already", "--force")
    assert earlier.stat().st_mtime_ns == stamp
    result = cli("backup", str(site.root), str(earlier), "--force")
    assert result.exit_code == 0, result.output
    assert is_database(earlier)
    empty = site.root / "empty.db"
    empty.touch()  # e.g. made by `touch` or mktemp first
    assert cli("backup", str(site.root), str(empty), "--force").exit_code == 0
    assert is_database(empty)
    folder = site.root / "folder.db"
    folder.mkdir()
    one_line_error(cli("backup", str(site.root), str(folder), "--force"), "is a folder")
    # every copy went through a temporary file that is gone now
    assert not [p.name for p in site.root.iterdir() if p.name.endswith(".partial")]


def test_backup_onto_the_live_database_or_its_journal_is_always_refused(indexed):
    site = indexed
    db = site.database_path
    before = db.read_bytes()
    link = site.root / "link.db"
    link.symlink_to(db)
    hard = site.root / "hard.db"
    os.link(db, hard)
    spellings = [db, site.root / ".masthead" / ".." / ".masthead" / db.name, link, hard]
    for dest in spellings:
        for extra in ([], ["--force"]):
            one_line_error(cli("backup", str(site.root), str(dest), *extra), "live database")
    for suffix in ("-wal", "-shm", "-journal"):
        dest = db.with_name(db.name + suffix)
        one_line_error(cli("backup", str(site.root), str(dest), "--force"), "live database")
        assert not dest.exists()
    assert db.read_bytes() == before


def test_backup_into_a_missing_folder_is_refused_not_created(indexed):
    site = indexed
    dest = site.root / "nonexist" / "deeper" / "x.db"
    result = cli("backup", str(site.root), str(dest))
    one_line_error(result, str(dest), f"the folder {dest.parent} does not exist")
    assert not (site.root / "nonexist").exists()


# --- 2. serve without SITE serves the site it is run in ---------------------------------------


def serving_line(cwd: Path, **env: str) -> str:
    """The first line `masthead serve --port 0` (no SITE) prints when run in `cwd`."""
    environ = {**os.environ, **env}
    cmd = [sys.executable, "-m", "masthead", "serve", "--port", "0", "--server", "uvicorn"]
    cmd += ["--workers", "1", "--no-watch"]
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=environ, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        return proc.stdout.readline() if proc.stdout else ""
    finally:
        proc.terminate()
        proc.wait(20)


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_serve_without_site_serves_the_current_folder_when_it_is_a_site(indexed, tmp_path):
    site = indexed
    assert f"serving {site.root} at http://127.0.0.1:" in serving_line(site.root)
    elsewhere = tmp_path / "not-a-site"  # no masthead.toml: the bundled demo, as before
    elsewhere.mkdir()
    line = serving_line(elsewhere, XDG_CACHE_HOME=str(tmp_path / "cache"))
    assert "demo at http://127.0.0.1:" in line, line


# --- 3. one-line messages stay one line in a pipe ---------------------------------------------


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_the_index_summary_is_one_line_when_piped(make_site):
    # `masthead index | wc -l` was 2 once the summary passed 80 columns (a site of 1,000
    # files); COLUMNS=40 shows the same with a small site
    site = make_site({"posts/a.md": post("A", "2024-03-01")})
    for columns in ("40", ""):
        result = masthead("index", str(site.root), "--full", COLUMNS=columns)
        assert result.returncode == 0, result.stderr
        assert len(result.stdout.splitlines()) == 1, result.stdout
        assert result.stdout.startswith("1 files: 1 parsed") and "generation" in result.stdout


def test_search_log_rows_are_one_line_each_when_piped(make_site):
    import time

    from masthead.store.db import Database
    from masthead.store.search_log import log_search

    site = make_site({})
    query = "how does the kubelet relist every pod under load " * 3
    db = Database(site.database_path)
    with db.write() as conn:
        entry = {"at": time.time(), "query": query.strip(), "terms": query, "lang": "en"}
        entry |= {"filters": {"lang": "en"}, "results": 0, "latency_ms": 1.0, "client": "x"}
        log_search(conn, entry)
    db.close()
    result = masthead("search-log", str(site.root))
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if "kubelet" in line]
    assert len(rows) == 2, result.stdout  # the top queries and those with no results
    assert all(query.strip() in row and "lang=en" in row for row in rows)


def test_usage_errors_are_one_line_like_every_other_error(make_site):
    site = make_site({})
    one_line_error(masthead("build", str(site.root)), "missing argument", "build --help")
    one_line_error(masthead("serve", "--port", "x"), "invalid value for '--port'", "--help")
    one_line_error(masthead("bogus"), "no such command 'bogus'")


# --- 4. init's settings: plain settings above the tables ---------------------------------------


MARK = "# Tables ([languages.en], [[menu.en]] ...) go last: put plain settings above this line."


def test_init_keeps_plain_settings_above_the_tables_and_says_so(tmp_path):
    target = tmp_path / "mysite"
    assert runner.invoke(app, ["init", str(target)]).exit_code == 0
    toml = target / "masthead.toml"
    lines = toml.read_text(encoding="utf-8").splitlines()
    assert MARK in lines
    above, below = lines[: lines.index(MARK)], lines[lines.index(MARK) + 1 :]
    assert not [line for line in above if line.lstrip().startswith("[")]
    headers = [line for line in below if line.strip() and not line.startswith("#")]
    assert headers[0].startswith("[")  # nothing but tables after the mark
    # a setting put where the comment says is read as a setting
    text = "\n".join([*above, 'base_url = "https://blog.example.com"', MARK, *below]) + "\n"
    toml.write_text(text, encoding="utf-8")
    assert load_site(target).settings.base_url == "https://blog.example.com"


def test_a_setting_appended_under_the_last_table_gets_a_hint(tmp_path):
    target = tmp_path / "mysite"
    assert runner.invoke(app, ["init", str(target)]).exit_code == 0
    toml = target / "masthead.toml"
    toml.write_text(toml.read_text() + 'base_url = "https://blog.example.com"\n')
    with pytest.raises(ConfigError) as caught:
        load_site(target)
    message = str(caught.value)
    assert "menu.zh.0.base_url: Extra inputs are not permitted" in message
    assert "after a [[menu.zh]] line into that table" in message
    assert "base_url is a plain setting, move it above the first table" in message
    toml.write_text('[languages.en]\nname = "English"\nposts_per_page = 3\n')
    with pytest.raises(ConfigError, match=r"after a \[languages\.en\] line"):
        load_site(target)


# --- 5. new --translation-of a page bundle folder ---------------------------------------------


def test_new_translation_of_a_bundle_folder_takes_its_index(make_site):
    site = make_site(
        {
            "posts/harbour/index.md": post("Harbour", translationKey="harbour-2024"),
            "posts/harbour/photo.jpg": b"\xff\xd8",
            "posts/empty-folder/photo.jpg": b"\xff\xd8",
        }
    )
    for given in ("content/posts/harbour/", str(site.content_dir / "posts/harbour")):
        made = site.content_dir / "posts/harbour/index.zh.md"
        made.unlink(missing_ok=True)
        result = runner.invoke(
            app, ["new", str(site.root), "港口", "--lang", "zh", "--translation-of", given]
        )
        assert result.exit_code == 0, result.output
        assert result.output.strip() == str(made)
        assert 'translationKey: "harbour-2024"' in made.read_text(encoding="utf-8")
    # index.md and index.zh.md: the original is index.md, in the target language here
    result = runner.invoke(
        app, ["new", str(site.root), "Harbour", "--translation-of", "content/posts/harbour"]
    )
    assert result.exit_code == 2 and "already in English" in result.output
    (site.content_dir / "posts/harbour/index.md").rename(
        site.content_dir / "posts/harbour/index.en.md"
    )
    result = cli("new", str(site.root), "Port", "--lang", "zh", "--translation-of", given)
    assert result.exit_code == 2, result.output
    assert "several originals (index.en.md, index.zh.md); give one" in result.output
    folder = "content/posts/empty-folder"
    empty = cli("new", str(site.root), "x", "--lang", "zh", "--translation-of", folder)
    assert empty.exit_code == 2 and "without an index.md" in empty.output


# --- 6. a YAML error is reported on the line an editor shows -----------------------------------


@pytest.mark.parametrize(
    ("front", "line", "column", "words"),
    [
        ("title: [unclosed\ndate: 2024-03-01", 2, 8, "quote the whole value"),
        ("date: 2024-03-01\ntitle: [unclosed", 3, 8, "quote the whole value"),
        ("title: {a: 1\ndate: 2024-03-01", 2, 8, "quote the whole value"),
        ('title: "unclosed\ndate: 2024-03-01', 2, 8, "quote opened here is never closed"),
        ("title: a\n  tags: b\ndate: 2024-03-01", 3, 7, "indented more than the one above"),
        ("title: a\n\tdate: 2024-03-01", 3, 1, "tabs"),
        ("title: A: B\ndate: 2024-03-01", 2, 9, "quote values that contain ': '"),
        ("date: 2024-03-01\ntags:\n  - a\n - b", 5, 2, "quote"),
        ("date: 2024-03-01\nexcerpt: @home", 3, 10, "cannot start with @"),
    ],
)
def test_yaml_errors_name_the_line_and_column_an_editor_shows(front, line, column, words):
    text = f"---\n{front}\n---\n\nBody.\n"
    with pytest.raises(ContentError) as caught:
        frontmatter.split("p.md", text)
    issue = caught.value.issue
    assert issue.line == line, issue.reason
    assert f", column {column}:" in issue.reason and words in issue.reason, issue.reason


def test_a_key_given_twice_is_reported_on_its_second_line():
    with pytest.raises(ContentError) as caught:
        frontmatter.split("p.md", "---\ntitle: T\ndate: 2024-03-01\ntitle: U\n---\n")
    assert caught.value.issue.line == 4 and "lines 2 and 4" in caught.value.issue.reason


# --- 4. a folder that is not a site is said so, never taken for an empty site -----------------

NOT_A_SITE = [
    ["check"],
    ["check", "--strict"],
    ["index"],
    ["search-log"],
    ["new", ".", "A title"],
    ["build", ".", "out", "--base-url", "https://example.com"],
    ["backup", ".", "copy.db"],
    ["vacuum", "."],
    ["restore", ".", "backup.db", "--yes"],
    ["comments", "export", "."],
    ["comments", "export-person", ".", "a@example.com"],
    ["comments", "erase", ".", "a@example.com", "--yes"],
    ["comments", "import", ".", "export.json"],
    ["admin", "list", "."],
    ["admin", "add-user", ".", "alice", "--password-stdin"],
    ["admin", "password", ".", "alice", "--password-stdin"],
    ["admin", "remove", ".", "alice"],
    ["admin", "token", ".", "alice"],
    ["mail", "status"],
    ["mail", "send"],
]


# run as real processes (a piped stderr, a password on stdin): the command that takes no SITE
# and one that reads stdin; the others in-process (what they refuse is the same code)
IN_A_PROCESS = [["check"], ["admin", "add-user", ".", "alice", "--password-stdin"]]


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_every_command_refuses_a_folder_that_is_no_site_and_writes_nothing(tmp_path, monkeypatch):
    folder = tmp_path / "empty"
    folder.mkdir()
    (folder / "export.json").write_text("{}")  # files the commands are given, not the site
    (folder / "backup.db").write_bytes(b"")
    before = sorted(p.name for p in folder.iterdir())
    env = {"COLUMNS": "200", "XDG_CACHE_HOME": str(tmp_path / "cache")}
    monkeypatch.chdir(folder)
    assert all(args in NOT_A_SITE for args in IN_A_PROCESS)
    for args in NOT_A_SITE:
        if args in IN_A_PROCESS:
            result = subprocess.run(
                [sys.executable, "-m", "masthead", *args],
                cwd=folder,
                input="secret-pass\n",
                capture_output=True,
                text=True,
                env={**os.environ, **env},
                timeout=60,
            )
            code = result.returncode
        else:
            result = runner.invoke(app, args, input="secret-pass\n", env=env)
            code = result.exit_code
        assert code == 2, (args, result.stdout, result.stderr)
        lines = result.stderr.splitlines()
        assert len(lines) == 1, (args, result.stderr)
        assert str(folder) in lines[0] and "no masthead.toml" in lines[0], (args, lines)
        assert "masthead init DIR" in lines[0], (args, lines)
        assert "errors: 0" not in result.stdout + result.stderr, args
        assert sorted(p.name for p in folder.iterdir()) == before, args  # no .masthead/ made
    (folder / "content").mkdir()  # content and no masthead.toml: default settings (Docker)
    result = masthead("check", cwd=folder)
    assert result.returncode == 0 and "errors: 0" in result.stderr, result.stderr
    (folder / "content").rmdir()
    (folder / "masthead.toml").write_text("")  # an empty one is a site of default settings
    result = masthead("check", cwd=folder)
    assert result.returncode == 0 and "errors: 0" in result.stderr, result.stderr


def test_serve_dir_serves_an_empty_folder_as_an_empty_site_and_says_so(tmp_path):
    """The Docker image's empty /site volume (README, Deploying): served, not refused."""
    empty = tmp_path / "site"
    empty.mkdir()
    cmd = [sys.executable, "-m", "masthead", "serve", str(empty), "--port", "0"]
    cmd += ["--server", "uvicorn", "--workers", "1", "--no-watch"]
    env = {**os.environ, "MASTHEAD_DATABASE": str(tmp_path / "data" / "site.db")}
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
    finally:
        proc.terminate()
        proc.wait(20)
    assert f"serving {empty} at http://127.0.0.1:" in line and "as an empty site" in line, line
    assert "no masthead.toml and no content folder" in line, line


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_serve_without_site_elsewhere_says_it_serves_the_demo_and_why(tmp_path):
    elsewhere = tmp_path / "not-a-site"
    elsewhere.mkdir()
    line = serving_line(elsewhere, XDG_CACHE_HOME=str(tmp_path / "cache"))
    assert "serving the bundled demo site" in line, line
    assert f"{elsewhere} has no masthead.toml" in line and "masthead init DIR" in line, line
    assert list(elsewhere.iterdir()) == []
