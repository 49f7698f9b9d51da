"""Comments in and out (issue 11, items 10 and 11): WXR and Disqus imports (C54, C55), the JSON
export and its import, a commenter's data request, restore from a backup; on real site folders
and real SQLite files, through the real `masthead` command."""

from __future__ import annotations

import datetime as dt
import gzip
import json
import os
import re
import shutil
import sqlite3
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from masthead.comments import sanitize
from masthead.comments.port import disqus, wxr
from masthead.comments.port import service as comments_io
from masthead.comments.port.records import ExportFormatError, Imported
from masthead.config import Site, load_site
from masthead.store import comment_removal as removal
from masthead.store import comments as store
from masthead.store.db import Database
from masthead.store.migrations import MIGRATIONS

from support.cli import invoke as masthead
from support.comments_port import CASES, POSTS
from support.sites import BILINGUAL_TOML, post

runner = CliRunner()
SHANGHAI = ZoneInfo("Asia/Shanghai")
NEW_YEAR = 1577836800.0  # 2020-01-01T00:00:00Z


def rows(site: Site) -> dict[str, store.Comment]:
    """source id → stored comment."""
    db = Database(site.database_path)
    try:
        return {c.source_id or str(c.id): c for c in store.all_comments(db.read())}
    finally:
        db.close()


def thread_of(site: Site, url: str) -> str:
    """The thread key of the post at `url` (its translation group)."""
    db = Database(site.database_path)
    try:
        row = db.read().execute("SELECT translation_key FROM posts WHERE url = ?", (url,))
        return str(row.fetchone()[0])
    finally:
        db.close()


@pytest.fixture
def site(make_site) -> Site:  # type: ignore[no-untyped-def]
    return make_site(POSTS)


# --- the parsers ----------------------------------------------------------------------------


def test_wxr_parser_reads_ids_parents_statuses_kinds_and_the_gmt_date():
    with open(CASES / "C55-wxr-import.xml", "rb") as f:
        records = [r for r in wxr.parse(f) if isinstance(r, Imported)]
    by_id = {r.source_id: r for r in records}
    assert list(by_id) == ["12", "10", "11", "13", "14", "15", "16", "17", "18", "19"]
    assert (by_id["12"].parent, by_id["10"].parent, by_id["13"].parent) == ("11", None, "99")
    assert {i: by_id[i].status for i in ("10", "16", "17", "18")} == {
        "10": "approved",
        "16": "spam",
        "17": "trash",
        "18": "pending",
    }
    assert by_id["19"].kind == "pingback" and by_id["10"].kind == "comment"
    assert by_id["12"].created == NEW_YEAR + 2 * 3600 and by_id["12"].author_name == "Carol"
    assert by_id["12"].thread.slug == "harbour-lights" and by_id["12"].thread.title == ""


@pytest.mark.parametrize(
    "text",
    [
        # billion laughs: entities are refused, never expanded
        b'<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;">]>'
        b"<rss><channel><item><title>&b;</title></item></channel></rss>",
        # an external entity (a local file)
        b'<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        b"<rss><channel><item><title>&x;</title></item></channel></rss>",
        b"<rss><channel><item><title>cut short",
        b"<feed><entry/></feed>",
    ],
)
def test_wxr_parser_refuses_entities_dtds_bad_xml_and_other_documents(text, tmp_path):
    path = tmp_path / "bad.xml"
    path.write_bytes(text)
    with open(path, "rb") as f, pytest.raises(ExportFormatError):
        list(wxr.parse(f))


def test_disqus_parser_refuses_a_dtd(tmp_path):
    path = tmp_path / "bad.xml"
    path.write_bytes(b'<!DOCTYPE disqus [<!ENTITY a "x">]><disqus xmlns="http://disqus.com"/>')
    with open(path, "rb") as f, pytest.raises(ExportFormatError, match="refused"):
        list(disqus.parse(f))


def test_disqus_parser_waits_for_a_thread_met_after_its_posts(tmp_path):
    path = tmp_path / "late.xml"
    path.write_text(
        '<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals">'
        '<post dsq:id="2"><message>early</message><createdAt>2020-01-01T00:00:00Z</createdAt>'
        '<thread dsq:id="9"/></post>'
        '<post dsq:id="3"><message>lost</message><thread dsq:id="404"/></post>'
        '<thread dsq:id="9"><id>tides</id><link>https://old.example.com/tides/</link></thread>'
        "</disqus>",
        encoding="utf-8",
    )
    with open(path, "rb") as f:
        records = {r.source_id: r for r in disqus.parse(f) if isinstance(r, Imported)}
    assert records["2"].thread.identifier == "tides" and records["2"].created == NEW_YEAR
    assert records["3"].thread.key == "404" and records["3"].thread.link == ""
    assert records["3"].created is None and "no createdAt" in records["3"].date_note


DATES_SCRIPT = """
import json, sys
from masthead.comments import sanitize
from masthead.comments.port import disqus, wxr
out = {}
for name, parse in (("C54-wxr-dates.xml", wxr.parse), ("C54-disqus-export.xml", disqus.parse)):
    with open(sys.argv[1] + "/" + name, "rb") as f:
        for r in parse(f):
            out[r.source_id] = [r.created, r.date_note]
print(json.dumps(out, sort_keys=True))
"""


def test_c54_parsed_dates_are_the_same_whatever_the_process_tz():
    outputs = []
    for tz in ("UTC", "America/Los_Angeles", "Asia/Shanghai"):
        done = subprocess.run(
            [sys.executable, "-c", DATES_SCRIPT, str(CASES)],
            capture_output=True,
            text=True,
            env={**os.environ, "TZ": tz},
            timeout=60,
            check=True,
        )
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] == outputs[2]
    dates = json.loads(outputs[0])
    assert dates["21"][0] == NEW_YEAR  # comment_date_gmt read as UTC
    assert dates["4468847854"][0] == NEW_YEAR  # Disqus createdAt, Z
    when = dt.datetime.fromtimestamp(dates["21"][0], SHANGHAI)
    assert when.isoformat() == "2020-01-01T08:00:00+08:00"
    # a zero comment_date_gmt: comment_date in the offset the same post's dates show
    assert dates["22"][0] == NEW_YEAR + 90 * 60 and "+08:00" in dates["22"][1]
    assert dates["23"] == [None, dates["23"][1]] and "no offset" in dates["23"][1]


# --- C55: a WXR import --------------------------------------------------------------------------


def test_c55_wxr_import_rebuilds_the_tree_maps_statuses_and_is_idempotent(site):
    code, out = masthead("comments", "import", site.root, CASES / "C55-wxr-import.xml")
    assert code == 0, out
    assert "10 new, 0 already present" in out
    assert "/posts/harbour-lights/ (by slug harbour-lights)" in out
    got = rows(site)
    assert len(got) == 10
    ids = {k: c.id for k, c in got.items()}
    # 10 → 11 → 12, whatever the order in the file (12 comes first)
    assert got["11"].parent_id == ids["10"] and got["12"].parent_id == ids["11"]
    assert got["10"].parent_id is None
    # 13's parent is not in the file: top level, reported
    assert got["13"].parent_id is None
    assert "comment 13: parent 99 missing from the export: imported at top level" in out
    # the cycle 14/15 is broken, one at top level, the other under it, reported
    assert {got["14"].parent_id, got["15"].parent_id} in ({None, ids["14"]}, {None, ids["15"]})
    assert "comment 14: replies form a cycle (14 → 15 → 14): 14 at top level" in out
    statuses = {k: got[k].status for k in ("10", "16", "17", "18", "19")}
    assert statuses == {
        "10": "approved",
        "16": "spam",
        "17": "trash",
        "18": "pending",
        "19": "approved",
    }
    assert got["19"].kind == "pingback" and "1 pingback(s) read, 0 skipped" in out
    assert "ok" in got["18"].body_html and "javascript" not in got["18"].body_html
    assert got["12"].created == NEW_YEAR + 2 * 3600
    assert (got["12"].source, got["12"].source_id) == ("wxr", "12")
    # one thread across the translations: the post's translation key
    assert {c.thread for c in got.values()} == {thread_of(site, "/zh/posts/harbour-lights/")}
    assert {c.post_url for c in got.values()} == {"/posts/harbour-lights/"}

    code, again = masthead("comments", "import", site.root, CASES / "C55-wxr-import.xml")
    assert code == 0 and "0 new, 10 already present" in again
    assert "note:" not in again  # nothing happened to anything this time
    assert len(rows(site)) == 10


def test_c55_pings_can_be_skipped_and_are_counted_and_a_dry_run_writes_nothing(site):
    code, out = masthead("comments", "import", site.root, CASES / "C55-wxr-import.xml", "--dry-run")
    assert code == 0 and "10 would be new, 0 already present" in out and "dry run" in out
    assert rows(site) == {}
    code, out = masthead(
        "comments", "import", site.root, CASES / "C55-wxr-import.xml", "--skip-pings"
    )
    assert code == 0 and "9 new" in out and "1 pingback(s) read, 1 skipped" in out
    assert "19" not in rows(site)


def test_a_malformed_comment_or_file_writes_nothing(site, tmp_path):
    text = (CASES / "C55-wxr-import.xml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.xml"
    bad.write_text(text.replace("<wp:comment_id>17<", "<wp:comment_id>x17<"), encoding="utf-8")
    code, out = masthead("comments", "import", site.root, bad)
    assert code == 2 and "must be whole numbers" in out and "nothing imported" in out
    bad.write_text(text[: len(text) // 2], encoding="utf-8")
    code, out = masthead("comments", "import", site.root, bad)
    assert code == 2 and "not well-formed XML at line" in out
    assert rows(site) == {}


def test_unmapped_items_are_reported_and_the_rest_imported(make_site):
    site = make_site({"posts/other.md": post("Other", "2024-01-01")})
    code, out = masthead("comments", "import", site.root, CASES / "C55-wxr-import.xml")
    assert code == 1
    assert "not mapped: https://old.example.com/?p=7 slug harbour-lights: 10 comment(s)" in out
    assert rows(site) == {}


# --- C54: dates of imports ----------------------------------------------------------------------


def test_c54_wxr_and_disqus_imports_date_comments_in_utc(site):
    code, out = masthead("comments", "import", site.root, CASES / "C54-wxr-dates.xml")
    assert code == 0, out
    code, _ = masthead("comments", "import", site.root, CASES / "C54-disqus-export.xml")
    assert code == 1  # one Disqus thread has no post here
    got = rows(site)
    shown = {
        k: dt.datetime.fromtimestamp(got[k].created, SHANGHAI).isoformat()
        for k in ("21", "22", "4468847854")
    }
    assert shown == {
        "21": "2020-01-01T08:00:00+08:00",
        "4468847854": "2020-01-01T08:00:00+08:00",
        "22": "2020-01-01T09:30:00+08:00",
    }
    assert "comment 22: comment_date read in the export's offset +08:00" in out
    # no offset to read comment 23's date in: reported, dated as its post (never the import day)
    tides = dt.datetime.fromisoformat("2019-12-30T18:00:00+08:00").timestamp()
    assert got["23"].created == tides
    assert "comment 23: comment_date_gmt is zero and the export gives no offset" in out
    assert got["22"].parent_id == got["21"].id


# the `masthead comments import` and `export` commands, run in one process with its own TZ
CLI_SCRIPT = """
import sys
import zlib
import time
from typer.testing import CliRunner
from masthead.cli import app
runner, root = CliRunner(), sys.argv[1]
for export in sys.argv[2:]:
    assert runner.invoke(app, ["comments", "import", root, export]).exit_code in (0, 1)
print(runner.invoke(app, ["comments", "export", root]).stdout)
"""


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_c54_import_and_export_are_identical_under_two_process_zones(make_site, tmp_path):
    exports = []
    for n, tz in enumerate(("UTC", "America/Los_Angeles")):
        root = tmp_path / f"site{n}"
        shutil.copytree(make_site(POSTS).root, root, ignore=shutil.ignore_patterns(".masthead"))
        files = [str(CASES / name) for name in ("C54-wxr-dates.xml", "C54-disqus-export.xml")]
        done = subprocess.run(
            [sys.executable, "-c", CLI_SCRIPT, str(root), *files],
            env={**os.environ, "TZ": tz},
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        exports.append(json.loads(done.stdout)["comments"])
    assert len(exports[0]) == 8  # 3 WXR comments, 5 Disqus posts (one thread has no post here)
    assert exports[0] == exports[1]
    assert {c["source_id"]: c["date"] for c in exports[0]}["21"] == "2020-01-01T00:00:00+00:00"


# --- Disqus -----------------------------------------------------------------------------------


def test_disqus_import_maps_by_identifier_and_old_url_nests_and_reports_the_rest(site, tmp_path):
    code, out = masthead("comments", "import", site.root, CASES / "C54-disqus-export.xml")
    assert code == 1, out  # one thread has no post here
    assert "/posts/harbour-lights/ (by slug harbour-lights): 4 new of 4" in out
    assert "/posts/tides/ (by old URL /2019/12/old-name-of-tides/): 1 new of 1" in out
    assert 'not mapped: "Gone" https://old.example.com/2019/11/gone/' in out
    got = rows(site)
    assert len(got) == 5
    first, reply = got["4468847854"], got["4468847855"]
    assert reply.parent_id == first.id  # the reply came first in the file
    assert (first.source, first.author_name, first.author_email) == (
        "disqus",
        "Alice",
        "alice@example.net",
    )
    assert (
        "<script" not in first.body_html
        and 'rel="nofollow ugc noopener noreferrer"' in first.body_html
    )
    assert got["4468847856"].status == "spam" and got["4468847857"].status == "trash"
    assert got["4468847858"].thread == thread_of(site, "/posts/tides/")
    zipped = tmp_path / "old-example-2026-01-31T12_00_00.xml.gz"  # as Disqus mails it
    zipped.write_bytes(gzip.compress((CASES / "C54-disqus-export.xml").read_bytes()))
    code, again = masthead("comments", "import", site.root, zipped)
    assert "Disqus XML, 6 comments read" in again and "0 new, 5 already present" in again


# --- the JSON export and its import -------------------------------------------------------------


def _native(db: Database, parent: int | None, name: str, email: str, when: float) -> int:
    """A comment written here (not imported) on the post /posts/tides/."""
    row = db.read().execute("SELECT translation_key FROM posts WHERE url = '/posts/tides/'")
    return store.add(
        db,
        store.NewComment(
            thread=row.fetchone()[0],
            post_url="/posts/tides/",
            parent_id=parent,
            lang="en",
            status="approved",
            author_name=name,
            author_email=email,
            author_url="https://example.net/" + name.lower(),
            body=f"*Hello* from {name} 🌊",
            body_html=sanitize.render(f"*Hello* from {name} 🌊"),
            created=when,
            fingerprint=f"fp-{name}-{when}",
            ip_hash="ab12",
            notify=True,
        ),
        "reader",
    )


def test_json_export_round_trips_into_a_new_site_and_again_into_itself(make_site, tmp_path):
    site = make_site(POSTS)
    masthead("comments", "import", site.root, CASES / "C55-wxr-import.xml")
    db = Database(site.database_path)
    top = _native(db, None, "Ann", "ann@example.net", 1.7e9)
    _native(db, top, "Ben", "ben@example.net", 1.7e9 + 60)
    doomed = _native(db, top, "Cy", "cy@example.net", 1.7e9 + 120)
    _native(db, doomed, "Di", "di@example.net", 1.7e9 + 180)
    removal.delete_permanently(db, [doomed], "editor:ann")  # a placeholder with a reply
    store.edit(db, top, "author", body="*Hello* again", body_html="<p><em>Hello</em> again</p>")
    db.close()
    exported = tmp_path / "comments.json"
    code, out = masthead("comments", "export", site.root, "--output", exported)
    assert code == 0 and "14 comments exported" in out
    data = json.loads(exported.read_text(encoding="utf-8"))
    assert (data["format"], data["version"]) == ("masthead-comments", 1)

    code, again = masthead("comments", "import", site.root, exported)
    assert code == 0 and "0 new, 14 already present" in again, again

    other = tmp_path / "other"
    shutil.copytree(site.root, other, ignore=shutil.ignore_patterns(".masthead"))
    code, out = masthead("comments", "import", other, exported)
    assert code == 0 and "14 new, 0 already present" in out, out
    second = tmp_path / "second.json"
    masthead("comments", "export", other, "--output", second)
    back = json.loads(second.read_text(encoding="utf-8"))["comments"]
    assert _comparable(back) == _comparable(data["comments"])


def _comparable(comments: list[dict]) -> list[dict]:
    """The comments with their ids replaced by their order (a new site numbers them anew)."""
    number = {c["id"]: n for n, c in enumerate(sorted(comments, key=lambda c: c["id"]))}
    out = []
    for c in sorted(comments, key=lambda c: number[c["id"]]):
        c = {**c, "id": number[c["id"]]}
        c["parent"] = None if c["parent"] is None else number[c["parent"]]
        out.append(c)
    return out


# --- a commenter's data request -----------------------------------------------------------------


def test_export_person_and_erase_keep_the_thread_shape_and_the_email_nowhere_else(site, tmp_path):
    masthead("index", site.root)
    db = Database(site.database_path)
    top = _native(db, None, "Ann", "Ann@Example.net", 1.7e9)
    reply = _native(db, top, "Ben", "ben@example.net", 1.7e9 + 60)
    leaf = _native(db, reply, "Ann", "ann@example.net ", 1.7e9 + 120)
    db.close()
    code, out = masthead("comments", "export-person", site.root, "ann@example.net")
    assert code == 0
    person = json.loads(out)
    assert person["email"] == "ann@example.net"
    assert [c["id"] for c in person["comments"]] == [top, leaf]
    assert out.count("ann@example.net") == 1 and "ben@" not in out and "ab12" not in out

    code, out = masthead("comments", "erase", site.root, "ANN@example.net", "--yes")
    assert code == 0 and "2 comment(s) erased, 1 left as anonymous placeholders" in out
    assert "ann@" not in out.lower()
    db = Database(site.database_path)
    conn = db.read()
    kept = store.get(conn, top)
    assert (
        kept is not None and kept.status == "deleted" and kept.author_name == "" and kept.body == ""
    )
    assert store.get(conn, leaf) is None
    ben = store.get(conn, reply)
    assert ben is not None and ben.parent_id == top and ben.status == "approved"
    db.close()
    code, out = masthead("comments", "export", site.root)
    assert "ann@" not in out.lower() and "from Ann" not in out and "from Ben" in out
    code, out = masthead("comments", "export-person", site.root, "ann@example.net")
    assert json.loads(out)["comments"] == []


# --- storage: comments are never derived; backup and restore -------------------------------------


def test_index_full_leaves_comments_untouched(site):
    masthead("comments", "import", site.root, CASES / "C55-wxr-import.xml")
    before = rows(site)
    code, out = masthead("index", site.root, "--full")
    assert code == 0, out
    assert rows(site) == before


def _database_at(path: Path, version: int) -> sqlite3.Connection:
    """A database file at schema `version`, as that release left it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    for statements in MIGRATIONS[:version]:
        for sql in statements:
            conn.execute(sql)
    conn.execute(f"PRAGMA user_version = {version}")
    return conn


def _log_searches(conn: sqlite3.Connection) -> list[tuple]:
    conn.executemany(
        "INSERT INTO search_log (at, query, terms, filters, lang, results, latency_ms, client) "
        "VALUES (?, ?, ?, '{}', 'en', ?, 1.5, 'c')",
        [(1.7e9, "harbour", "harbour", 1), (1.7e9 + 5, "灯塔", "灯塔", 0)],
    )
    return conn.execute("SELECT * FROM search_log ORDER BY id").fetchall()


def test_a_database_made_by_release_3_is_migrated_keeps_its_search_log_and_takes_comments(site):
    conn = _database_at(site.database_path, 3)
    searches = _log_searches(conn)
    conn.close()
    code, out = masthead("comments", "import", site.root, CASES / "C55-wxr-import.xml")
    assert code == 0 and "10 new" in out, out
    conn = sqlite3.connect(site.database_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert conn.execute("SELECT * FROM search_log ORDER BY id").fetchall() == searches
    assert conn.execute("SELECT count(*) FROM comments").fetchone()[0] == 10
    conn.close()


def test_migration_9_gives_every_stored_comment_its_own_token_key(site):
    conn = _database_at(site.database_path, 8)
    conn.executemany(
        "INSERT INTO comments (thread, post_url, lang, status, author_name, author_email, "
        "author_url, body, body_html, created, ip_hash, client_hash, fingerprint, reason) "
        "VALUES ('t', '/posts/tides/', 'en', 'approved', ?, '', '', 'x', '<p>x</p>', ?, "
        "'', '', '', '')",
        [("Ann", NEW_YEAR), ("Ben", NEW_YEAR)],
    )
    conn.close()
    keys = [c.token_key for c in rows(site).values()]
    assert len(set(keys)) == 2 and all(len(k) == 32 and int(k, 16) >= 0 for k in keys)


def test_a_backup_taken_with_comments_restores_them_under_a_serving_site(site, tmp_path, serve):
    masthead("comments", "import", site.root, CASES / "C55-wxr-import.xml")
    saved = rows(site)
    code, out = masthead("backup", site.root, tmp_path / "backup.db")
    assert code == 0, out
    client = serve(site)  # a worker holds the database open while it is restored
    assert client.get("/posts/tides/").status_code == 200
    db = Database(site.database_path)
    generation = int(
        db.read().execute("SELECT value FROM site_state WHERE key = 'generation'").fetchone()[0]
    )
    removal.delete_permanently(db, [c.id for c in saved.values()], "editor:ann")
    signal = db.signal.stamp()
    db.close()
    assert rows(site) == {}
    code, out = masthead("restore", site.root, tmp_path / "backup.db", "--yes")
    assert code == 0 and "10 comments" in out, out
    assert rows(site) == saved
    assert Path(str(site.database_path) + ".pre-restore").exists()
    db = Database(site.database_path)
    restored_generation = db.read().execute("SELECT value FROM site_state WHERE key = 'generation'")
    assert int(restored_generation.fetchone()[0]) > generation  # no cache key reused
    assert db.signal.stamp() != signal
    db.close()
    health = client.get("/healthz")
    assert health.status_code == 200 and health.json()["generation"] > generation
    assert client.get("/posts/tides/").status_code == 200
    assert not list(site.database_path.parent.glob("*.restoring*"))


def test_an_edit_token_from_before_a_restore_cannot_edit_the_comment_that_reuses_its_id(
    make_site, tmp_path, serve
):
    unthrottled = "comments_flood_seconds = 0\ncomments_per_minute = 0\n"
    site = make_site(POSTS, unthrottled + BILINGUAL_TOML)
    client = serve(site)
    client.base_url = "https://testserver"
    url = "/posts/harbour-lights/"
    who = {"name": "Ann", "email": "ann@example.org", "url": ""}
    assert client.post("/api/comments", json={"post": url, "body": "First.", **who}).is_success
    code, out = masthead("backup", site.root, tmp_path / "backup.db")  # the site secret too
    assert code == 0, out
    who = {"name": "Mallory", "email": "m@example.org", "url": ""}
    mallory = client.post("/api/comments", json={"post": url, "body": "Hi.", **who}).json()
    code, out = masthead("restore", site.root, tmp_path / "backup.db", "--yes")
    assert code == 0, out
    who = {"name": "Victim", "email": "v@example.org", "url": ""}
    victim = client.post("/api/comments", json={"post": url, "body": "Mine.", **who}).json()
    assert victim["id"] == mallory["id"]
    bearer = {"Authorization": f"Bearer {mallory['token']}"}
    answer = client.patch(f"/api/comments/{victim['id']}", json={"body": "defaced"}, headers=bearer)
    assert answer.status_code == 403, answer.text
    assert rows(site)[str(victim["id"])].body == "Mine."


def test_restore_refuses_a_damaged_file_a_newer_schema_or_another_database(site, tmp_path):
    masthead("comments", "import", site.root, CASES / "C55-wxr-import.xml")
    saved = rows(site)
    masthead("backup", site.root, tmp_path / "good.db")
    damaged = tmp_path / "damaged.db"
    data = bytearray((tmp_path / "good.db").read_bytes())
    page = 4096
    for n in range(2, len(data) // page):  # scribble over every page but the header's
        data[n * page + 8 : n * page + 200] = b"\xa5" * 192
    damaged.write_bytes(bytes(data))
    newer = tmp_path / "newer.db"
    shutil.copy(tmp_path / "good.db", newer)
    conn = sqlite3.connect(newer)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    conn.close()
    foreign = tmp_path / "foreign.db"
    sqlite3.connect(foreign).execute("CREATE TABLE t (x)").connection.commit()
    text = tmp_path / "notes.txt"
    text.write_text("not a database at all " * 300)
    for bad, said in (
        (damaged, "damaged"),
        (newer, "made by a newer masthead"),
        (foreign, "not a masthead database"),
        (text, "not a masthead database, or damaged"),
    ):
        code, out = masthead("restore", site.root, bad, "--yes")
        assert code == 2 and said in out, (bad, out)
        assert rows(site) == saved
    assert not Path(str(site.database_path) + ".pre-restore").exists()


def test_restore_migrates_an_older_backup_and_keeps_its_search_log(site, tmp_path):
    old = tmp_path / "release3.db"
    conn = _database_at(old, 3)
    searches = _log_searches(conn)
    conn.close()
    masthead("comments", "import", site.root, CASES / "C55-wxr-import.xml")
    code, out = masthead("restore", site.root, old, "--yes")
    assert code == 0 and f"schema {len(MIGRATIONS)}, migrated from schema 3" in out, out
    conn = sqlite3.connect(site.database_path)
    assert conn.execute("SELECT * FROM search_log ORDER BY id").fetchall() == searches
    assert conn.execute("SELECT count(*) FROM comments").fetchone()[0] == 0
    conn.close()


def test_restore_replaces_a_damaged_live_database_and_keeps_its_bytes(site, tmp_path):
    masthead("comments", "import", site.root, CASES / "C55-wxr-import.xml")
    saved = rows(site)
    masthead("backup", site.root, tmp_path / "good.db")
    for stale in ("-wal", "-shm"):
        Path(str(site.database_path) + stale).unlink(missing_ok=True)
    site.database_path.write_bytes(b"\x00garbage after a disk failure" * 500)
    code, out = masthead("restore", site.root, tmp_path / "good.db", "--yes")
    assert code == 0, out
    assert rows(site) == saved
    kept = Path(str(site.database_path) + ".pre-restore").read_bytes()
    assert kept.startswith(b"\x00garbage after a disk failure")
    code, out = masthead("restore", site.root, site.database_path, "--yes")
    assert code == 2 and "not a backup of it" in out


EDGES = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:wp="http://wordpress.org/export/1.1/"><channel><title>Old</title>
<wp:timezone_string>Asia/Shanghai</wp:timezone_string>
<item><title>Harbour lights</title><link>https://old.example.com/?p=7</link>
<wp:post_name>harbour-lights</wp:post_name>
<wp:comment><wp:comment_id>31</wp:comment_id><wp:comment_parent>0</wp:comment_parent>
<wp:comment_approved>1</wp:comment_approved><wp:comment_author>Mallory</wp:comment_author>
<wp:comment_author_url>javascript:alert(1)</wp:comment_author_url>
<wp:comment_date>2020-01-01 08:00:00</wp:comment_date>
<wp:comment_date_gmt>0000-00-00 00:00:00</wp:comment_date_gmt>
<wp:comment_content>Line one
line two

Second paragraph</wp:comment_content></wp:comment>
<wp:comment><wp:comment_id>32</wp:comment_id><wp:comment_parent>0</wp:comment_parent>
<wp:comment_approved>2</wp:comment_approved><wp:comment_type>order_note</wp:comment_type>
<wp:comment_content>Order shipped to 1 Private Road</wp:comment_content></wp:comment>
</item>
<item><title>Tides</title><link>https://old.example.com/tides/</link>
<wp:post_name>tides</wp:post_name>
<wp:comment><wp:comment_id>33</wp:comment_id><wp:comment_parent>31</wp:comment_parent>
<wp:comment_approved>hold</wp:comment_approved>
<wp:comment_date_gmt>2020-01-02 00:00:00</wp:comment_date_gmt>
<wp:comment_content>A reply filed under another post</wp:comment_content></wp:comment>
</item></channel></rss>
"""


def test_wxr_zones_line_breaks_other_types_unknown_statuses_and_parents_on_other_posts(
    site, tmp_path
):
    path = tmp_path / "edges.xml"
    path.write_text(EDGES, encoding="utf-8")
    code, out = masthead("comments", "import", site.root, path)
    assert code == 0, out
    got = rows(site)
    assert set(got) == {"31", "33"}
    assert "1 comment(s) of type 'order_note' skipped" in out  # private notes never shown
    mallory = got["31"]
    assert mallory.created == NEW_YEAR  # comment_date read in the channel's zone
    assert "the export's zone Asia/Shanghai" in out
    assert mallory.author_url == ""  # not an http(s) URL: dropped
    assert mallory.body_html.count("<p>") == 2 and "<br>" in mallory.body_html
    assert got["33"].status == "pending" and "status 'hold': held" in out
    assert got["33"].parent_id is None and "parent 31 on another post" in out


def _wxr(parents: list[int]) -> str:
    """A WXR item whose comment n (1-based) answers comment parents[n-1] (0: top level; past
    the end: a parent missing from the file), listed in reverse order."""
    comments = "".join(
        f"<wp:comment><wp:comment_id>{n}</wp:comment_id><wp:comment_parent>{p}"
        f"</wp:comment_parent><wp:comment_approved>1</wp:comment_approved>"
        f"<wp:comment_date_gmt>2020-01-01 00:00:{n % 60:02d}</wp:comment_date_gmt>"
        f"<wp:comment_content>c{n}</wp:comment_content></wp:comment>"
        for n, p in reversed(list(enumerate(parents, start=1)))
    )
    return (
        '<rss xmlns:wp="http://wordpress.org/export/1.2/"><channel><item>'
        f"<wp:post_name>tides</wp:post_name>{comments}</item></channel></rss>"
    )


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> Site:  # type: ignore[no-untyped-def]
    """A site with the test posts indexed, its database copied by each example."""
    from support.sites import write_site

    site = write_site(tmp_path_factory.mktemp("tree") / "site", POSTS)
    masthead("index", site.root)
    return site


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.integers(min_value=0, max_value=14), min_size=1, max_size=12))
def test_any_reply_graph_imports_every_comment_once_as_a_tree(indexed, tmp_path, parents):
    db_path = tmp_path / f"t{abs(hash(tuple(parents)))}.db"
    shutil.copy(indexed.database_path, db_path)
    export = db_path.with_suffix(".xml")
    export.write_text(_wxr(parents), encoding="utf-8")
    db = Database(db_path)
    try:
        report = comments_io.import_file(db, export, site=indexed)
        stored = {c.source_id: c for c in store.all_comments(db.read())}
    finally:
        db.close()
    assert report.new == len(parents) == len(stored) and not report.problems
    by_id = {c.id: c for c in stored.values()}
    for key, c in stored.items():
        seen, up = set(), c.parent_id
        while up is not None:  # every chain ends at the top level: no cycle survives
            assert up in by_id and up not in seen
            seen.add(up)
            up = by_id[up].parent_id
        wanted = parents[int(key) - 1]
        if c.parent_id is not None:  # a kept parent is the one the file named
            assert by_id[c.parent_id].source_id == str(wanted)
        elif wanted:  # made top level: always said in the report
            assert any(w.endswith(f"comment {key}") for w, _ in report.notes), report.notes


def test_a_json_file_with_a_bad_comment_or_a_newer_version_writes_nothing(site, tmp_path):
    masthead("index", site.root)
    db = Database(site.database_path)
    _native(db, None, "Ann", "ann@example.net", 1.7e9)
    db.close()
    exported = tmp_path / "comments.json"
    masthead("comments", "export", site.root, "--output", exported)
    data = json.loads(exported.read_text(encoding="utf-8"))
    good = data["comments"][0]
    wxr12 = {"source": "wxr", "source_id": "12"}
    fresh = tmp_path / "fresh"
    shutil.copytree(site.root, fresh, ignore=shutil.ignore_patterns(".masthead"))
    for change, said in (
        ({"comments": [good, {**good, "id": 99, "created": float("nan")}]}, "is not a time"),
        ({"comments": [good, {**good, "id": 99, "status": "published"}]}, "unknown status"),
        ({"comments": [good, good]}, "appears twice"),
        (
            {"comments": [{**good, **wxr12}, {**good, "id": 99, **wxr12}]},
            "wxr 12 appears twice",
        ),
        ({"version": 2}, "reads up to 1"),
    ):
        exported.write_text(json.dumps({**data, **change}), encoding="utf-8")
        code, out = masthead("comments", "import", fresh, exported)
        assert code == 2 and said in out and "nothing imported" in out, out
        assert rows(load_site(fresh)) == {}


def test_a_thread_is_found_by_a_url_its_post_had_before_its_slug_changed(make_site, tmp_path):
    site = make_site({"posts/tides.md": post("Tides", "2019-12-30", slug="tides-and-moons")})
    masthead("index", site.root)
    (site.root / "content/posts/tides.md").write_text(post("Tides", "2019-12-30"), "utf-8")
    path = tmp_path / "moved.xml"
    path.write_text(
        '<rss xmlns:wp="http://wordpress.org/export/1.2/"><channel><item>'
        "<link>https://old.example.com/posts/tides-and-moons</link>"
        "<wp:post_name>a-slug-this-site-never-had</wp:post_name>"
        "<wp:comment><wp:comment_id>41</wp:comment_id><wp:comment_approved>1"
        "</wp:comment_approved><wp:comment_date_gmt>2020-01-01 00:00:00</wp:comment_date_gmt>"
        "<wp:comment_content>Found again</wp:comment_content></wp:comment>"
        "</item></channel></rss>",
        encoding="utf-8",
    )
    code, out = masthead("comments", "import", site.root, path)  # indexes the new slug first
    assert code == 0, out
    assert "/posts/tides/ (by old URL /posts/tides-and-moons/)" in out
    assert rows(site)["41"].post_url == "/posts/tides/"


# --- a fresh user's trial (session 6): names, slugs, links, pages, purged comments ----------

TRIAL_POSTS = {
    "posts/cafe.md": post("Café notes", "2024-01-01", slug="café-notes"),
    "posts/from-disqus.md": post("From Disqus", "2024-01-02"),
    "posts/statics.md": post("Statics", "2024-01-03"),
    "pages/about.md": post("About", "2024-01-01"),
}


def _wxr_item(slug: str, link: str, *comments: tuple[int, int, str, str]) -> str:
    """A WXR item with comments (id, parent, author as in the file, text)."""
    out = f"<item><link>{link}</link><wp:post_name>{slug}</wp:post_name>"
    for cid, parent, author, text in comments:
        out += (
            f"<wp:comment><wp:comment_id>{cid}</wp:comment_id>"
            f"<wp:comment_parent>{parent}</wp:comment_parent>"
            f"<wp:comment_author><![CDATA[{author}]]></wp:comment_author>"
            "<wp:comment_approved>1</wp:comment_approved>"
            "<wp:comment_date_gmt>2024-02-01 00:00:00</wp:comment_date_gmt>"
            f"<wp:comment_content><![CDATA[{text}]]></wp:comment_content></wp:comment>"
        )
    return out + "</item>"


def _wxr_file(tmp_path: Path, *items: str) -> Path:
    path = tmp_path / "export.xml"
    body = "".join(items)
    path.write_text(
        f'<rss xmlns:wp="http://wordpress.org/export/1.2/"><channel>{body}</channel></rss>',
        encoding="utf-8",
    )
    return path


def test_a_wordpress_name_with_entities_is_shown_once_decoded(make_site, tmp_path, serve):
    site = make_site(TRIAL_POSTS)
    export = _wxr_file(
        tmp_path,
        _wxr_item("from-disqus", "https://old.example.com/?p=2",
                  (1, 0, "Zoë &amp; Ünal", "Hello"), (2, 0, "O&#039;Brien &amp;amp; co", "Hi")),
    )  # fmt: skip
    code, out = masthead("comments", "import", site.root, export)
    assert code == 0, out
    got = rows(site)
    assert got["1"].author_name == "Zoë & Ünal"
    assert got["2"].author_name == "O'Brien &amp; co"  # decoded once: what the author typed
    client = serve(site)
    page = client.get("/posts/from-disqus/").text
    assert "Zoë &amp; Ünal" in page and "Zoë &amp;amp; Ünal" not in page
    feed = client.get("/comments/feed.xml").text
    assert "Zoë &amp; Ünal" in feed and "Zoë &amp;amp; Ünal" not in feed


def test_a_disqus_name_is_plain_text_already_and_stays_so(make_site, tmp_path):
    """Disqus exports names as XML text (no HTML entities of their own): a guard that the
    WordPress decoding is not applied to them."""
    site = make_site(TRIAL_POSTS)
    path = tmp_path / "disqus.xml"
    path.write_text(
        '<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals">'
        '<thread dsq:id="1"><link>https://old.example.com/posts/from-disqus/</link></thread>'
        '<post dsq:id="5"><message>Hi</message><createdAt>2024-02-01T00:00:00Z</createdAt>'
        '<author><name>Tom &amp;amp; Jerry</name></author><thread dsq:id="1"/></post></disqus>',
        encoding="utf-8",
    )
    code, out = masthead("comments", "import", site.root, path)
    assert code == 0, out
    assert rows(site)["5"].author_name == "Tom &amp; Jerry"  # as the commenter typed it


def test_a_percent_encoded_wordpress_slug_finds_its_post(make_site, tmp_path):
    site = make_site(TRIAL_POSTS)
    export = _wxr_file(
        tmp_path,
        _wxr_item("caf%c3%a9-notes", "https://old.example.com/?p=9", (3, 0, "A", "Bonjour")),
    )
    code, out = masthead("comments", "import", site.root, export)
    assert code == 0, out
    assert "/posts/caf%C3%A9-notes/ (by slug café-notes): 1 new of 1" in out
    assert "not mapped" not in out and rows(site)["3"].post_url == "/posts/caf%C3%A9-notes/"


@pytest.mark.parametrize(
    ("link", "post_url"),
    [
        ("https://old.example.com/posts/from-disqus/index.html", "/posts/from-disqus/"),
        ("https://old.example.com/posts/from-disqus.html", "/posts/from-disqus/"),
        ("https://old.example.com/posts/statics.htm?utm=x#c", "/posts/statics/"),
        ("https://old.example.com/posts/./statics/index.htm", "/posts/statics/"),
    ],
)
def test_a_disqus_link_to_an_html_file_finds_its_post(make_site, tmp_path, link, post_url):
    site = make_site(TRIAL_POSTS)
    path = tmp_path / "disqus.xml"
    path.write_text(
        '<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals">'
        f'<thread dsq:id="1"><link>{link}</link></thread>'
        '<post dsq:id="6"><message>Hi</message><createdAt>2024-02-01T00:00:00Z</createdAt>'
        '<author><name>T</name></author><thread dsq:id="1"/></post></disqus>',
        encoding="utf-8",
    )
    code, out = masthead("comments", "import", site.root, path)
    assert code == 0, out
    assert rows(site)["6"].post_url == post_url


def test_comments_imported_onto_a_page_are_reported_as_not_shown_and_stay_out_of_feeds(
    make_site, tmp_path, serve
):
    site = make_site(TRIAL_POSTS)
    export = _wxr_file(
        tmp_path,
        _wxr_item("about", "https://old.example.com/about/", (7, 0, "P", "On the page")),
        _wxr_item("statics", "https://old.example.com/?p=3", (8, 0, "Q", "On a post")),
    )
    code, out = masthead("comments", "import", site.root, export)
    assert code == 0, out
    assert "/pages/about/" in out or "/about/" in out
    assert "a page: these comments are stored but not shown" in out
    assert "warning: 1 comment(s) belong to pages, which show no comments" in out
    client = serve(site)
    feed = client.get("/comments/feed.xml").text
    assert "On a post" in feed and "On the page" not in feed
    assert rows(site)["7"].post_url not in feed


def test_a_comment_deleted_for_good_is_not_brought_back_by_the_same_import(make_site, tmp_path):
    site = make_site(TRIAL_POSTS)
    export = _wxr_file(
        tmp_path,
        _wxr_item("statics", "https://old.example.com/?p=3",
                  (10, 0, "A", "Keep"), (11, 0, "Spammer", "Buy"), (12, 11, "B", "Re: buy"),
                  (13, 12, "C", "Re: re")),
    )  # fmt: skip
    code, out = masthead("comments", "import", site.root, export)
    assert code == 0 and "4 new" in out, out
    got = rows(site)
    db = Database(site.database_path)
    try:  # a moderator deletes 13 and 12 for good, then 11 (no replies left: gone too)
        removal.delete_permanently(db, [got["13"].id, got["12"].id, got["11"].id], "editor:e")
    finally:
        db.close()
    assert set(rows(site)) == {"10"}
    code, again = masthead("comments", "import", site.root, export)
    assert code == 0, again
    assert "0 new, 1 already present" in again
    assert "3 deleted for good here since an earlier import: skipped" in again
    assert set(rows(site)) == {"10"}
    code, dry = masthead("comments", "import", site.root, export, "--dry-run")
    assert "0 would be new" in dry and set(rows(site)) == {"10"}


def test_a_reply_to_a_purged_comment_comes_in_under_its_grandparent(make_site, tmp_path):
    site = make_site(TRIAL_POSTS)
    first = _wxr_file(
        tmp_path, _wxr_item("statics", "https://old.example.com/?p=3",
                            (20, 0, "A", "Top"), (21, 20, "Spammer", "Buy"))
    )  # fmt: skip
    masthead("comments", "import", site.root, first)
    db = Database(site.database_path)
    try:
        removal.delete_permanently(db, [rows(site)["21"].id], "editor:e")
    finally:
        db.close()
    later = _wxr_file(
        tmp_path, _wxr_item("statics", "https://old.example.com/?p=3",
                            (20, 0, "A", "Top"), (21, 20, "Spammer", "Buy"),
                            (22, 21, "B", "A reply written after the first export"))
    )  # fmt: skip
    code, out = masthead("comments", "import", site.root, later)
    assert code == 0 and "1 new, 1 already present" in out, out
    got = rows(site)
    assert set(got) == {"20", "22"} and got["22"].parent_id == got["20"].id


# --- the language of imported comments, the time of the import's audit rows ------------------


def _lang_export(tmp_path: Path, name: str, channel_lang: str, *items: str) -> Path:
    """A WXR file whose channel states `channel_lang` (none when '')."""
    head = f"<language>{channel_lang}</language>" if channel_lang else ""
    path = tmp_path / name
    path.write_text(
        f'<rss xmlns:wp="http://wordpress.org/export/1.2/"><channel>{head}{"".join(items)}'
        "</channel></rss>",
        encoding="utf-8",
    )
    return path


def _langs_of(page: str) -> dict[str, str | None]:
    """Each comment's text → the `lang` its element has on the page (None: none, the page's)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page, "html.parser")
    return {
        li.select_one(".comment__body").get_text(strip=True): li.get("lang")
        for li in soup.select("li.comment")
    }


def test_imported_comments_keep_the_language_their_export_states_never_their_posts(
    make_site, tmp_path, serve
):
    site = make_site(POSTS)
    polylang = '<category domain="language" nicename="zh"><![CDATA[中文]]></category>'
    tides = _wxr_item("tides", "https://old.example.com/?p=8", (31, 0, "Ann", "潮汐的评论"))
    zh_site = _lang_export(
        tmp_path,
        "zh.xml",
        "zh-CN",  # a Chinese WordPress site; both threads map to English posts
        _wxr_item(
            "harbour-lights", "https://old.example.com/?p=7", (11, 0, "Li", "写得真好")
        ).replace("<item>", "<item>" + polylang),
        tides,
    )
    french = _lang_export(
        tmp_path,
        "fr.xml",
        "fr-FR",
        _wxr_item("tides", "https://old.example.com/?p=9", (41, 0, "Zoé", "Très beau")),
    )
    silent = _lang_export(
        tmp_path,
        "none.xml",
        "",
        _wxr_item("tides", "https://old.example.com/?p=10", (51, 0, "Bo", "No language said")),
    )
    for export in (zh_site, french, silent):
        code, out = masthead("comments", "import", site.root, export)
        assert code == 0, out
    code, out = masthead("comments", "import", site.root, CASES / "C54-disqus-export.xml")
    assert code == 1, out  # one thread has no post here
    got = rows(site)
    assert (got["11"].lang, got["31"].lang) == ("zh", "zh")  # Polylang's, then the channel's
    assert got["41"].lang == "fr-FR"  # a language the site has not: the export's tag
    assert got["51"].lang == ""  # stated nowhere: no claim
    disqus_langs = {c.lang for c in got.values() if c.source == "disqus"}
    assert disqus_langs == {""}  # Disqus exports state no language
    client = serve(site)
    english = _langs_of(client.get("/posts/tides/").text)
    assert english["潮汐的评论"] == "zh-Hans"  # the site's tag for zh, on an English page
    assert english["Très beau"] == "fr-FR"
    assert english["No language said"] is None  # no wrong lang: it takes the page's
    harbour = _langs_of(client.get("/posts/harbour-lights/").text)
    assert harbour["写得真好"] == "zh-Hans"
    (first,) = [text for text in harbour if text.startswith("First!")]
    assert harbour[first] is None  # a Disqus comment
    feed = client.get("/posts/tides/comments-atom.xml").text
    assert 'xml:lang="zh-Hans"' in feed and 'xml:lang="fr-FR"' in feed
    entries = re.findall(r"<entry([^>]*)>.*?</entry>", feed, re.S)
    assert not any('xml:lang="en"' in e for e in entries), feed  # the default claimed by none
    assert sum("xml:lang" not in e for e in entries) == 2, feed  # no claim: the feed's own


def test_a_json_export_keeps_a_comment_of_no_known_language_so(make_site, tmp_path):
    site = make_site(POSTS)
    silent = _lang_export(
        tmp_path,
        "none.xml",
        "",
        _wxr_item("harbour-lights", "https://old.example.com/?p=7", (1, 0, "Bo", "Said nothing")),
    )
    assert masthead("comments", "import", site.root, silent)[0] == 0
    export = tmp_path / "export.json"
    assert masthead("comments", "export", site.root, "-o", export)[0] == 0
    data = json.loads(export.read_text(encoding="utf-8"))
    assert [c["lang"] for c in data["comments"]] == [""]
    other = write_other_site(tmp_path)
    assert masthead("comments", "import", other.root, export)[0] == 0
    assert [c.lang for c in rows(other).values()] == [""]  # not the post's "en"


def write_other_site(tmp_path: Path) -> Site:
    from support.sites import write_site

    return write_site(tmp_path / "other", POSTS)


def test_the_imports_audit_rows_are_dated_when_it_ran_and_comments_keep_their_own_date(site):
    before = time.time()
    code, out = masthead("comments", "import", site.root, CASES / "C55-wxr-import.xml")
    after = time.time()
    assert code == 0, out
    db = Database(site.database_path)
    try:
        conn = db.read()
        logged = conn.execute("SELECT * FROM audit_log WHERE actor = 'import'").fetchall()
        comments = list(store.all_comments(conn))
    finally:
        db.close()
    assert {r["action"] for r in logged} >= {"create"}
    assert len([r for r in logged if r["action"] == "create"]) == len(comments) > 0
    assert all(before <= r["at"] <= after for r in logged), [r["at"] for r in logged]
    assert all(c.created < before - 365 * 86400 for c in comments)  # their 2019-2020 dates


# --- issue 29, item 6: dry run and import agree; a thread's link gives its language ---------------


def _disqus(
    tmp_path: Path, threads: dict[str, str], posts: list[tuple[str, str, str, str]]
) -> Path:
    """A Disqus export: `threads` dsq:id → link; `posts` (id, thread id, parent id or '', text)."""
    out = '<?xml version="1.0" encoding="utf-8"?><disqus xmlns="http://disqus.com" '
    out += 'xmlns:dsq="http://disqus.com/disqus-internals">'
    for tid, link in threads.items():
        out += f'<thread dsq:id="{tid}"><id/><link>{link}</link><title>T</title></thread>'
    for n, (pid, tid, parent, text) in enumerate(posts):
        up = f'<parent dsq:id="{parent}"/>' if parent else ""
        out += (
            f'<post dsq:id="{pid}"><id/><message><![CDATA[<p>{text}</p>]]></message>'
            f"<createdAt>2020-01-01T00:{n:02d}:00Z</createdAt><isDeleted>false</isDeleted>"
            "<isSpam>false</isSpam><author><email>a@example.net</email><name>A</name>"
            f'<isAnonymous>false</isAnonymous></author><thread dsq:id="{tid}"/>{up}</post>'
        )
    path = tmp_path / "disqus.xml"
    path.write_text(out + "</disqus>", encoding="utf-8")
    return path


def _planned_and_stored(site: Site, export: Path) -> tuple[list[str], list[str], dict]:
    """The dry run's report lines, the real run's, and the stored comments by source id."""
    masthead("index", site.root)
    db = Database(site.database_path)
    try:
        dry = comments_io.import_file(db, export, site=site, dry_run=True)
        real = comments_io.import_file(db, export, site=site)
    finally:
        db.close()
    return dry.grouped_notes(), real.grouped_notes(), rows(site)


def test_a_parent_in_another_thread_of_the_same_post_is_nested_in_both_runs(make_site, tmp_path):
    """Two Disqus threads map to one post (its link and an old link); a reply in the second
    answers a comment in the first. The dry run used to report it top-level, the import nested
    it. And a parent on another post is top-level in both, said alike."""
    site = make_site(POSTS)
    threads = {
        "1": "https://old.example.com/2019/12/old-name-of-tides/",
        "2": "https://x.example/posts/tides/",
        "3": "https://x.example/posts/harbour-lights/",
    }
    posts = [
        ("11", "1", "", "top"),
        ("12", "2", "11", "reply across threads"),
        ("13", "2", "12", "reply to the reply"),
        ("14", "3", "11", "a parent on another post"),
    ]
    export = _disqus(tmp_path, threads, posts)
    dry, real, got = _planned_and_stored(site, export)
    assert dry == real, (dry, real)
    assert got["12"].parent_id == got["11"].id and got["13"].parent_id == got["12"].id
    assert got["14"].parent_id is None
    assert any("parent 11 on another post" in line for line in real), real
    assert not any("post 12 " in line for line in real), real


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 12)), min_size=1, max_size=10
    )  # (thread, parent: 0 none, past the end missing)
)
def test_any_file_gets_the_same_parents_in_the_dry_run_and_the_import(indexed, tmp_path, shape):
    """Every comment's parent, as the dry run reports it (top level: a note) and as the import
    stores it, for threads spread over two posts (threads 0-2 are one post: link, old link,
    `.html` link; 3 another)."""
    links = {
        "0": "https://x.example/posts/tides/",
        "1": "https://x.example/2019/12/old-name-of-tides/",
        "2": "https://x.example/posts/tides.html",
        "3": "https://x.example/posts/harbour-lights/",
    }
    posts = [
        (str(100 + n), str(t), str(100 + p - 1) if p else "", f"c{n}")
        for n, (t, p) in enumerate(shape, start=1)
    ]
    folder = tmp_path / f"d{abs(hash(tuple(shape)))}"
    folder.mkdir()
    db_path = folder / "site.db"
    shutil.copy(indexed.database_path, db_path)
    export = _disqus(folder, links, posts)
    db = Database(db_path)
    try:
        dry = comments_io.import_file(db, export, site=indexed, dry_run=True)
        real = comments_io.import_file(db, export, site=indexed)
        stored = {c.source_id: c for c in store.all_comments(db.read())}
    finally:
        db.close()
    assert dry.notes == real.notes and dry.new == real.new == len(posts)
    # a note says "top level" exactly for the replies stored at top level
    top = {where.split()[1] for where, what in real.notes if "top level" in what}
    for pid, _, parent, _ in posts:
        assert (bool(parent) and stored[pid].parent_id is None) == (pid in top), (pid, real.notes)


def test_a_thread_link_with_a_language_gives_its_comments_that_language(make_site, tmp_path, serve):
    """Disqus states no language; a thread whose link is `/zh/…`, `?lang=zh` (Polylang's query
    form) or `zh.` (its subdomain form) gives its comments `zh`; a WXR item's link beats the
    channel's `<language>`; a link with none leaves no claim."""
    site = make_site(POSTS)
    export = _disqus(
        tmp_path,
        {"1": "https://old.example.com/zh/posts/harbour-lights/",
         "2": "https://old.example.com/posts/tides/?lang=zh", "3": "https://zh.old.example.com/posts/tides/",
         "4": "https://old.example.com/posts/tides/", "5": "https://old.example.com/posts/harbour-lights/"},
        [("21", "1", "", "中文评论"), ("22", "2", "", "查询参数"), ("23", "3", "", "子域名"),
         ("24", "4", "", "no language"), ("25", "5", "", "english page")],
    )  # fmt: skip
    code, out = masthead("comments", "import", site.root, export)
    assert code == 0, out
    wxr_file = _lang_export(
        tmp_path,
        "en-channel.xml",
        "en-US",
        _wxr_item("tides", "https://old.example.com/zh/tides/", (61, 0, "Li", "频道是英文")),
    )
    code, out = masthead("comments", "import", site.root, wxr_file)
    assert code == 0, out
    got = rows(site)
    assert [got[k].lang for k in ("21", "22", "23", "24", "25", "61")] == [
        "zh", "zh", "zh", "", "", "zh"
    ]  # fmt: skip
    page = _langs_of(serve(site).get("/posts/tides/").text)
    assert page["查询参数"] == "zh-Hans" and page["no language"] is None


@pytest.mark.parametrize(
    ("link", "lang"),
    [("https://a.example/zh/x/", "zh"), ("https://a.example/zh-cn/x/", "zh"),
     ("https://a.example/posts/x/", ""), ("https://a.example/fr/x/", ""),
     ("https://a.example/x/?lang=zh_CN", "zh"), ("https://www.a.example/x/", ""),
     ("https://en.a.example/x/", "en"), ("/zh/x/", "zh"), ("", ""), ("https://a.example/", "")],
)  # fmt: skip
def test_link_language(make_site, link, lang):
    assert comments_io.link_language(link, make_site(POSTS)) == lang


# --- issue 29, D4: a gzip bomb is refused, not unpacked ---------------------------------------


BOMBS = {
    "disqus": (b'<?xml version="1.0"?><disqus xmlns="http://disqus.com">', b"</disqus>"),
    "json": (b'{"format": "masthead-comments", "version": 1, "comments": [', b"]}"),
}


def _bomb(path: Path, kind: str, unpacked_mib: int) -> Path:
    """A gzipped export padded with `unpacked_mib` MiB of blank lines (it packs ~1000 times):
    one gzip member, as `gzip.open(path, "wb", 9)` writes it. Each MiB is deflated once, ended by
    a full flush (which makes the next start afresh: the same bytes again), and repeated; only
    the CRC runs over all of it (deflating 300 MiB took 1.6 s of CPU)."""
    head, tail = BOMBS[kind]
    block = b"\n" * 1024**2

    def deflated(data: bytes) -> bytes:
        packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
        return packer.compress(data) + packer.flush(zlib.Z_FULL_FLUSH)

    crc = zlib.crc32(head)
    for _ in range(unpacked_mib):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(tail, crc)
    size = len(head) + unpacked_mib * len(block) + len(tail)
    last = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    path.write_bytes(
        b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"  # deflate, no name, no time, best
        + deflated(head)
        + deflated(block) * unpacked_mib
        + last.compress(tail)
        + last.flush()
        + struct.pack("<II", crc, size % 2**32)
    )
    return path


@pytest.mark.parametrize(
    "kind",
    # disqus: over 1.5 s of CPU (contributing.md: the everyday loop)
    [pytest.param(k, marks=[pytest.mark.slow] if k == "disqus" else []) for k in sorted(BOMBS)],
)
def test_a_gzip_bomb_is_refused_with_a_clear_message(site, tmp_path, kind):
    bomb = _bomb(tmp_path / "export.gz", kind, 300)  # 300 MiB in about 300 KB
    assert bomb.stat().st_size < 1024**2
    code, out = masthead("comments", "import", site.root, bomb)
    assert code == 2, out
    assert "unpacks to more than 64 MiB" in out and "zip bomb" in out, out
    assert "nothing imported" in out
    assert rows(site) == {}


def test_the_gzip_cap_leaves_a_real_export_alone(site, tmp_path):
    packed = tmp_path / "disqus.xml.gz"
    packed.write_bytes(gzip.compress((CASES / "C54-disqus-export.xml").read_bytes()))
    code, out = masthead("comments", "import", site.root, packed)
    assert code == 1, out  # as the plain file: one thread has no post here
    assert len(rows(site)) >= 3
