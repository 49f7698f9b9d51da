"""store/comments.py on a real SQLite file: statuses, placeholders, versions, the audit log."""

from __future__ import annotations

import pytest

from masthead.store import audit_log, comment_threads, site_secrets
from masthead.store import comment_facts as facts
from masthead.store import comment_moderation as moderation
from masthead.store import comment_removal as removal
from masthead.store import comments as cs
from masthead.store import posts as store
from masthead.store.db import Database


@pytest.fixture
def db(tmp_path):
    database = Database(tmp_path / "site.db")
    yield database
    database.close()


def new(thread="t1", parent=None, status="approved", name="Alice", body="Hi", **kw):
    return cs.NewComment(
        thread=thread,
        post_url="/posts/a/",
        parent_id=parent,
        lang=kw.pop("lang", "en"),
        status=status,
        author_name=name,
        author_email=kw.pop("email", "alice@example.org"),
        author_url="",
        body=body,
        body_html=f"<p>{body}</p>",
        created=kw.pop("created", 1_700_000_000.0),
        **kw,
    )


def test_insert_and_read_back_exactly(db):
    cid = cs.add(db, new(body="Zoë 👩🏽‍💻 `foo<bar>`"), "reader")
    c = cs.get(db.read(), cid)
    assert c.body == "Zoë 👩🏽‍💻 `foo<bar>`"
    assert c.date == "2023-11-14T22:13:20+00:00"
    assert "email" not in c.public() and "alice" not in str(c.public())
    assert [r["action"] for r in audit_log.history(db.read(), cid)] == ["create"]


def test_only_visible_changes_move_the_thread_version_and_the_signal(db):
    before = db.signal.stamp()
    cs.add(db, new(status="pending"), "reader")
    assert comment_threads.thread_versions(db.read()) == {}
    assert db.signal.stamp() == before
    cid = cs.add(db, new(status="approved"), "reader")
    assert comment_threads.thread_versions(db.read()) == {"t1": 1}
    assert db.signal.stamp() != before
    cs.set_status(db, [cid], "trash", "editor:e")
    assert comment_threads.thread_versions(db.read()) == {"t1": 2}
    assert comment_threads.comments_version(db.read()) == 2
    assert store.generation(db.read()) == 0  # pages of other threads stay cached


def test_set_status_is_conditional_and_audited(db):
    a = cs.add(db, new(status="pending"), "reader")
    b = cs.add(db, new(status="pending", body="x"), "reader")
    cs.set_status(db, [b], "approved", "editor:m2")
    done = cs.set_status(db, [a, b, 999], "spam", "editor:m1", expect={"pending"})
    assert done.changed == [a] and done.skipped == [b, 999]
    assert cs.get(db.read(), b).status == "approved"
    rows = audit_log.history(db.read(), a)
    assert (rows[-1]["actor"], rows[-1]["from_status"], rows[-1]["to_status"]) == (
        "editor:m1",
        "pending",
        "spam",
    )
    with pytest.raises(ValueError):
        cs.set_status(db, [a], "bogus", "x")


def test_placeholders_keep_replies_in_place_c39(db):
    a = cs.add(db, new(name="Alice", body="A"), "reader")
    b = cs.add(db, new(parent=a, name="Bob", body="B"), "reader")
    c = cs.add(db, new(parent=b, name="Alice", body="C"), "reader")
    d = cs.add(db, new(parent=a, name="Bob", body="D"), "reader")
    cs.set_status(db, [a], "trash", "author")
    removal.delete_permanently(db, [b], "editor:m")
    thread = {x.id: x for x in cs.public_thread(db.read(), "t1")}
    assert set(thread) == {a, b, c, d}
    assert thread[a].removed and thread[a].body == "" and thread[a].author_name == ""
    assert thread[b].status == "deleted" and thread[b].body == ""
    assert thread[c].parent_id == b and thread[d].parent_id == a
    assert cs.get(db.read(), a).body == "A"  # moderators still see it
    removal.delete_permanently(db, [c], "editor:m")  # the leaf goes, and the empty placeholder B
    assert cs.get(db.read(), c) is None and cs.get(db.read(), b) is None
    assert {x.id for x in cs.public_thread(db.read(), "t1")} == {a, d}
    assert cs.approved_counts(db.read()) == {"t1": 1}


def test_known_commenter_needs_the_browser_not_just_the_address_c48(db):
    cs.add(db, new(email="alice@example.org", client_hash="h1"), "reader")
    conn = db.read()
    assert facts.known_commenter(conn, " ALICE@example.org ", "h1")
    assert not facts.known_commenter(conn, "alice@example.org", "h2")
    assert not facts.known_commenter(conn, "alice@example.org", "")


def test_edit_keeps_the_previous_text_in_the_audit_log(db):
    cid = cs.add(db, new(body="first"), "reader")
    c = cs.edit(db, cid, "author", body="second", body_html="<p>second</p>")
    assert c.body == "second" and c.updated
    assert '"first"' in audit_log.history(db.read(), cid)[-1]["detail"]


def test_erase_person_leaves_anonymous_placeholders(db):
    a = cs.add(db, new(email="eve@example.org", name="Eve", body="mine"), "reader")
    r = cs.add(db, new(parent=a, email="bob@example.org", name="Bob"), "reader")
    cs.add(db, new(email="Eve@Example.org", name="Eve", body="leaf"), "reader")
    assert removal.erase_person(db, " eve@example.org", "system") == 2
    left = list(cs.all_comments(db.read()))
    assert [c.id for c in left] == [a, r]
    assert left[0].status == "deleted" and left[0].author_name == "" and left[0].body == ""
    assert (
        "eve" not in str([audit_log.history(db.read(), a)[i]["detail"] for i in range(2)]).lower()
    )


def test_empty_spares_newcomers_and_parent_must_share_the_thread(db):
    old = cs.add(db, new(status="spam", created=100.0), "reader")
    newer = cs.add(db, new(status="spam", created=200.0), "reader")
    assert removal.empty(db, "spam", "editor:m", max_id=old).changed == [old]
    assert cs.get(db.read(), newer) is not None
    with pytest.raises(ValueError):
        cs.add(db, new(thread="t2", parent=newer), "reader")


def test_the_site_secret_is_made_once(db):
    assert site_secrets.site_secret(db) == site_secrets.site_secret(db)
    assert len(site_secrets.site_secret(db)) == 32


def test_housekeeping_forgets_ips_and_empties_old_spam_and_trash(db, make_site):
    from masthead.comments import housekeeping
    from masthead.config import Settings

    day = 86400.0
    now = 1_800_000_000.0
    # counted from when each went to spam or trash (`trashed`), not from `created`
    spam_at, trash_at = now - 31 * day, now - 40 * day
    old_spam = cs.add(
        db, new(status="spam", created=now - 31 * day, trashed=spam_at, ip_hash="x"), "reader"
    )
    old_trash = cs.add(db, new(status="trash", created=now - 40 * day, trashed=trash_at), "reader")
    recent = cs.add(
        db, new(status="spam", created=now - 2 * day, trashed=now - 2 * day, ip_hash="y"), "reader"
    )
    kept = cs.add(db, new(status="approved", created=now - 90 * day, ip_hash="z"), "reader")
    done = housekeeping.sweep(db, Settings(), now)
    assert (done.spam, done.trash) == (1, 1)
    conn = db.read()
    assert cs.get(conn, old_spam) is None and cs.get(conn, old_trash) is None
    assert cs.get(conn, recent).ip_hash == "y" and cs.get(conn, kept).ip_hash == ""
    assert [
        r["actor"] for r in conn.execute("SELECT actor FROM audit_log WHERE action = 'delete'")
    ] == [
        "system",
        "system",
    ]
    off = Settings(comments_trash_days=0, comments_ip_days=0)
    assert housekeeping.sweep(db, off, now + 100 * day) == housekeeping.Swept()


def test_moderation_actions_restore_the_status_before_and_skip_changed_rows_c53(db):
    a = cs.add(db, new(status="approved", body="kept"), "reader")
    p = cs.add(db, new(status="pending", body="held"), "reader")
    assert moderation.moderate(db, "trash", [a], "editor:m").changed == [a]
    assert moderation.moderate(db, "spam", [p], "editor:m").changed == [p]
    assert moderation.moderate(db, "restore", [a, p], "editor:m") == cs.Changed([a], [p])
    assert cs.get(db.read(), a).status == "approved"  # as before it went to trash
    assert moderation.moderate(db, "notspam", [p], "editor:m").changed == [p]
    assert cs.get(db.read(), p).status == "pending"
    assert moderation.moderate(db, "approve", [a, p], "editor:m") == cs.Changed([p], [a])
    assert moderation.moderate(db, "delete", [p, 999], "editor:m") == cs.Changed([p], [999])
    with pytest.raises(ValueError, match="unknown action"):
        moderation.moderate(db, "nuke", [a], "editor:m")


def test_listing_filters_and_snapshot(db):
    ids = [
        cs.add(db, new(status="pending", body=f"visit evil.example/{i}", created=100.0 + i), "r")
        for i in range(5)
    ]
    cs.add(db, new(status="pending", body="50% off_sale", lang="zh", created=200.0), "r")
    where = moderation.Filter(status="pending", q="evil.example", max_id=ids[3])
    rows, total = moderation.listing(db.read(), where, page=1, per_page=2)
    assert total == 4 and [r.id for r in rows] == [ids[3], ids[2]]
    assert moderation.matching_ids(db.read(), where) == ids[:4]
    assert moderation.listing(db.read(), moderation.Filter(q="50%"))[1] == 1
    assert moderation.listing(db.read(), moderation.Filter(q="0%"))[1] == 1
    assert moderation.listing(db.read(), moderation.Filter(q="f_s"))[1] == 1
    assert moderation.listing(db.read(), moderation.Filter(q="%"))[1] == 1  # a literal percent sign
    assert moderation.listing(db.read(), moderation.Filter(lang="zh"))[1] == 1
    assert moderation.listing(db.read(), moderation.Filter(since=102.0, until=104.0))[1] == 2
    assert moderation.status_counts(db.read()) == {
        "pending": 6,
        "approved": 0,
        "spam": 0,
        "trash": 0,
    }


def test_erasure_takes_the_mails_about_and_to_the_person_too(db):
    from masthead.store import outbox

    cid = cs.add(db, new(email="eve@example.org", status="pending"), "reader")
    with db.write() as conn:
        for to, about in (("editor@example.com", cid), ("EVE@example.org", None)):
            conn.execute(
                "INSERT INTO mail_outbox (created, kind, recipient, message, status, "
                "next_attempt, comment_id) VALUES (1, 'held', :to, x'00', 'queued', 1, :c)",
                {"to": to, "c": about},
            )
    assert removal.erase_person(db, "eve@example.org", "system") == 1
    assert outbox.all_mail(db.read()) == []
