"""Moderation data after a second fresh-user trial (session 6, round 2), on a real SQLite file
and the real app over HTTP: spam and trash emptied by when they went there, never by the
comment's own date."""

from __future__ import annotations

import re
import sqlite3
import time

import pytest

from masthead.accounts import service as accounts
from masthead.comments import housekeeping
from masthead.comments.port.service import import_file
from masthead.config import Settings
from masthead.indexing.indexer import index_and_log
from masthead.store import audit_log
from masthead.store import comment_moderation as moderation
from masthead.store import comment_removal as removal
from masthead.store import comments as cs
from masthead.store.db import Database
from masthead.store.migrations import MIGRATIONS

from support import guanli
from support.cli import invoke as masthead
from support.comments_port import CASES, POSTS
from support.guanli import PASSWORD, add, csrf, signed_client, statuses
from support.sites import new_comment

DAY = 86400.0


@pytest.fixture(scope="module")
def moderated(tmp_path_factory) -> guanli.Moderated:  # type: ignore[no-untyped-def]
    return guanli.Moderated(tmp_path_factory.mktemp("moderated") / "site")


@pytest.fixture
def site(moderated, tmp_path):  # type: ignore[no-untyped-def]
    return moderated.copy(tmp_path / "site")


@pytest.fixture
def m1(moderated, site):  # type: ignore[no-untyped-def]
    yield from moderated.signed_in(site)


def test_imported_spam_and_trash_are_kept_their_full_term(make_site):
    s = make_site(POSTS)
    db = Database(s.database_path)
    try:
        index_and_log(s, db)
        report = import_file(db, CASES / "C55-wxr-import.xml", site=s)
        assert not report.problems
        conn = db.read()
        held = conn.execute(
            "SELECT status, created FROM comments WHERE status IN ('spam', 'trash')"
        ).fetchall()
        assert sorted(r["status"] for r in held) == ["spam", "trash"]
        assert all(r["created"] < time.time() - 365 * DAY for r in held)  # old comments
        # the first `masthead serve` sweeps at once: nothing imported goes
        assert housekeeping.sweep(db, Settings(), time.time()) == housekeeping.Swept()
        # the countdown started at import time: after comments_trash_days they go
        later = housekeeping.sweep(db, Settings(), time.time() + 30 * DAY + 60)
        assert (later.spam, later.trash) == (1, 1)
    finally:
        db.close()


def test_old_comments_marked_spam_in_bulk_survive_a_restart_and_undo(site, m1):
    ids = add(site, 2)  # created in 2023, pending until now
    page = m1.get("/guanli/comments?status=pending")
    done = m1.post(
        "/guanli/comments/act",
        data={
            "csrf": csrf(page),
            "action": "spam",
            "ids": [str(i) for i in ids],
            "seen": re.findall(r'name="seen" value="([^"]+)"', page.text),
            "back": "/guanli/comments?status=pending",
        },
    )
    assert done.status_code == 303
    notice = m1.get(done.headers["location"])
    assert statuses(site, ids) == ["spam", "spam"]
    db = Database(site.database_path)
    try:
        assert housekeeping.sweep(db, Settings(), time.time()) == housekeeping.Swept()
    finally:
        db.close()
    undone = m1.post(
        "/guanli/comments/undo",
        data={
            "csrf": csrf(notice),
            "notice": re.search(r'name="notice" value="(\d+)"', notice.text).group(1),
        },
    )
    assert undone.status_code == 303
    assert "2 changes undone" in m1.get(undone.headers["location"]).text
    assert statuses(site, ids) == ["pending", "pending"]


def test_every_move_into_spam_or_trash_restarts_the_count_and_leaving_clears_it(tmp_path):
    db = Database(tmp_path / "site.db")
    try:
        cid = cs.add(db, new_comment("t1", status="pending", created=1_000.0), "reader")
        assert cs.get(db.read(), cid).trashed is None
        cs.set_status(db, [cid], "trash", "reader", at=5_000.0)
        assert cs.get(db.read(), cid).trashed == 5_000.0
        moderation.moderate(db, "restore", [cid], "editor:m")
        assert cs.get(db.read(), cid).trashed is None
        cs.set_status(db, [cid], "spam", "mail", at=9_000.0)
        assert removal.empty(db, "spam", "system", before=8_999.0).changed == []
        assert removal.empty(db, "spam", "system", before=9_001.0).changed == [cid]
    finally:
        db.close()


def test_migration_10_starts_the_count_of_existing_spam_and_trash_now(tmp_path):
    path = tmp_path / "site.db"
    conn = sqlite3.connect(path)
    for number, statements in enumerate(MIGRATIONS[:9], start=1):
        for sql in statements:
            conn.execute(sql)
        conn.execute(f"PRAGMA user_version = {number}")
    for status in ("spam", "trash", "approved"):
        conn.execute(
            "INSERT INTO comments (thread, post_url, lang, status, author_name, author_email, "
            "author_url, body, body_html, created, ip_hash, client_hash, fingerprint, reason) "
            "VALUES ('t', '/a/', 'en', ?, 'A', '', '', 'x', '<p>x</p>', 1000.0, '', '', '', '')",
            (status,),
        )
    conn.commit()
    conn.close()
    before = time.time()
    db = Database(path)
    try:
        rows = {r["status"]: r["trashed"] for r in db.read().execute("SELECT * FROM comments")}
        assert rows["approved"] is None
        assert before - 1 <= rows["spam"] <= time.time() + 1
        assert before - 1 <= rows["trash"] <= time.time() + 1
        assert housekeeping.sweep(db, Settings(), time.time()) == housekeeping.Swept()
    finally:
        db.close()


def test_erase_scrubs_a_quick_edits_previous_values_from_the_audit_log(site, m1):
    (cid,) = add(site, 1, status="approved", body="Secret plans of Eve", name="Eve Example")
    page = m1.get("/guanli/comments")
    edited = m1.post(
        "/guanli/comments/edit",
        data={
            "csrf": csrf(page),
            "id": str(cid),
            "body": "Plans",
            "name": "E.",
            "email": "e@example.net",
            "url": "",
        },
    )
    assert edited.status_code == 303
    db = Database(site.database_path)
    try:
        assert (
            "Secret plans of Eve" in audit_log.history(db.read(), cid)[-1]["detail"]
        )  # kept till now
    finally:
        db.close()
    code, out = masthead("comments", "erase", site.root, "e@example.net", "--yes")
    assert code == 0, out
    db = Database(site.database_path)
    try:
        rows = audit_log.history(db.read(), cid)
        assert [r["action"] for r in rows] == ["create", "edit", "delete"]  # who did what, kept
        text = " ".join(r["detail"] for r in rows)
        for personal in ("Secret plans", "Eve Example", "s0@example.org", "e@example.net"):
            assert personal not in text
        edit = next(r for r in rows if r["action"] == "edit")
        assert edit["actor"] == "editor:m1" and '"edited"' in edit["detail"]
        # a comment whose address an edit changed away keeps its audit row, scrubbed too
        other = cs.add(db, new_comment("t1", "Mine", author_email="z@x.org"), "r")
        cs.edit(db, other, "editor:m1", author_email="someone@else.org")
        assert removal.erase_person(db, "Z@x.org ", "system") == 0
        assert "z@x.org" not in audit_log.history(db.read(), other)[-1]["detail"]
        assert cs.get(db.read(), other).author_email == "someone@else.org"
    finally:
        db.close()


WXR = """<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:wp="http://wordpress.org/export/1.2/"><channel>
<wp:wxr_version>1.2</wp:wxr_version><item><title>Harbour lights</title>
<link>https://old.example.com/?p=7</link><wp:post_name>harbour-lights</wp:post_name>
<wp:comment><wp:comment_id>31</wp:comment_id><wp:comment_parent>0</wp:comment_parent>
<wp:comment_approved>1</wp:comment_approved><wp:comment_author>Ann</wp:comment_author>
<wp:comment_date_gmt>2020-01-01 02:00:00</wp:comment_date_gmt>
<wp:comment_content><![CDATA[<p>First! <b>bold</b> and
<a href="https://a.example/">a link</a></p>]]></wp:comment_content>
</wp:comment></item></channel></rss>
"""


def test_quick_editing_an_imported_html_comment_never_publishes_escaped_tags(make_site, tmp_path):
    s = make_site(POSTS)
    export = tmp_path / "wordpress.xml"
    export.write_text(WXR, encoding="utf-8")
    db = Database(s.database_path)
    try:
        index_and_log(s, db)
        assert not import_file(db, export, site=s).problems
        accounts.add_user(db, "m1", PASSWORD)
        (imported,) = [c for c in cs.all_comments(db.read()) if c.source == "wxr"]
    finally:
        db.close()
    client = signed_client(s)
    try:
        page = client.get("/guanli/comments")
        assert "&lt;b&gt;bold&lt;/b&gt;" in page.text  # the textarea holds the stored HTML
        body = imported.body.replace("First!", "First, edited!") + "<script>x()</script>"
        done = client.post(
            "/guanli/comments/edit",
            data={"csrf": csrf(page), "id": str(imported.id), "body": body, "name": "Ann"},
        )
        assert done.status_code == 303
        post = client.get(imported.post_url).text
        feed = client.get("/comments/feed.xml").text
    finally:
        client.__exit__(None, None, None)
    assert "First, edited! <b>bold</b>" in post and "&lt;b&gt;" not in post
    assert "&lt;p&gt;" not in post and "<script>x()" not in post
    assert 'href="https://a.example/"' in post
    assert "First, edited!" in feed and "&amp;lt;b&amp;gt;" not in feed
    ld = re.search(r'<script type="application/ld\+json">(.*?)</script>', post, re.S)
    assert ld and "&lt;b&gt;" not in ld.group(1) and "First, edited!" in ld.group(1)


@pytest.mark.parametrize(
    ("stored", "typed"),
    [
        ("Иван", "иван"),
        ("иван", "ИВАН"),
        ("Müller", "MÜLLER"),
        ("José", "JOSÉ"),
        ("Jose\u0301", "JOSÉ"),  # a combining accent in the text, a precomposed one typed
        ("Straße", "STRASSE"),
    ],
)
def test_the_queue_search_is_caseless_in_any_script(site, m1, stored, typed):
    add(site, 1, body=f"Ответ от {stored} here", name="Reader")
    add(site, 1, body="unrelated", name=f"{stored} Q.")
    page = m1.get("/guanli/comments", params={"q": typed})
    assert page.status_code == 200
    assert f"Ответ от {stored} here" in page.text and f"{stored} Q." in page.text


def test_the_queue_search_matches_text_not_markup(site, m1):
    db = Database(site.database_path)
    try:
        key = db.read().execute("SELECT translation_key FROM posts WHERE url = '/posts/a/'")
        thread = key.fetchone()[0]
        html = '<p>A <strong>strong</strong> point, <a href="https://evil.example/x">see</a></p>'
        for n, body in enumerate((html, "<p><strong>Bold</strong> claim</p>")):
            cs.add(
                db,
                new_comment(
                    thread, body, status="pending", source="wxr", source_id=str(n), body_html=body
                ),
                "import",
            )
    finally:
        db.close()
    found = m1.get("/guanli/comments", params={"q": "strong"})
    assert "A <strong>strong</strong> point" in found.text  # the word, in its text
    assert "claim" not in found.text  # only the tag says strong
    for q in ("href", "<p>", "&amp;", "p>"):
        page = m1.get("/guanli/comments", params={"q": q})
        assert "claim" not in page.text and "point" not in page.text, q
    assert "point" in m1.get("/guanli/comments", params={"q": "EVIL.example"}).text  # its link


def test_audit_filters_match_what_their_placeholders_suggest(site, m1):
    ids = add(site, 2)
    page = m1.get("/guanli/comments?status=pending")
    done = m1.post(
        "/guanli/comments/act",
        data={
            "csrf": csrf(page),
            "action": "approve",
            "ids": [str(ids[0])],
            "seen": re.findall(r'name="seen" value="([^"]+)"', page.text),
            "back": "/guanli/comments",
        },
    )
    assert done.status_code == 303

    def events(**params):
        text = m1.get("/guanli/audit", params=params).text
        return int(re.search(r"<p>(\d+) events?</p>", text).group(1)), text

    assert events(action="approve")[0] >= 1  # a part of it: approved, bulk-approve
    assert events(action="approved")[0] == 1
    form = events()[1]
    assert 'placeholder="approved"' in form and '<option value="approved">' in form
    assert '<option value="editor:m1">' in form
    assert events(action="APPROVE ")[0] == events(action="approve")[0]
    assert events(actor="m1", action="approved")[0] == 1  # not only the exact editor:m1
    assert events(actor="M1", action="approved")[0] == 1
    assert events(actor="m2")[0] == 0
    assert events(action="nothing-like-it")[0] == 0


def test_dashboard_counts_say_1_comment_in_english_and_keep_one_form_in_chinese(site, m1):
    from masthead.i18n import gettext

    (cid,) = add(site, 1)
    page = m1.get("/guanli/comments?status=pending")
    assert ">1 comment<" in page.text and "1 comments" not in page.text
    assert "1 comments" not in m1.get("/guanli/").text
    asked = m1.post(
        "/guanli/comments/act",
        data={
            "csrf": csrf(page),
            "action": "delete",
            "ids": [str(cid)],
            "seen": re.findall(r'name="seen" value="([^"]+)"', page.text),
            "back": "/guanli/comments",
        },
    )
    assert "Delete 1 comment permanently?" in asked.text, asked.text[-800:]
    assert ">1 event</p>" in m1.get("/guanli/audit", params={"action": "create"}).text
    assert gettext("en", "g_total", n=0) == "0 comments"
    assert gettext("en", "g_total", n=2) == "2 comments"
    assert gettext("en", "g_done_undo", n=1) == "1 change undone."
    assert gettext("zh_Hans_CN", "g_total", n=1) == "共 1 条评论"
    assert gettext("zh", "g_total_events", n=1) == "共 1 条记录"
    assert gettext("en", "n_comments", n=1) == "1 comment"  # the public pages' form, as before
