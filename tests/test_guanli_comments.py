"""The /guanli comments screen without JavaScript (issue 12, items 2 and 3; C53) over HTTP."""

from __future__ import annotations

import html
import re
from urllib.parse import urlencode

import pytest

from masthead.store import audit_log, site_secrets
from masthead.store import comment_moderation as moderation
from masthead.store import comments as cs
from masthead.store.db import Database

from support import guanli
from support.guanli import add, csrf, signed_client, statuses
from support.sites import new_comment

HOSTILE = [
    "'; DROP TABLE comments;--",
    "<script>alert(1)</script>",
    "x" * 5000,
    "中文评论 👨‍👩‍👧‍👦 visit evil.example",
]


@pytest.fixture(scope="module")
def moderated(tmp_path_factory) -> guanli.Moderated:  # type: ignore[no-untyped-def]
    return guanli.Moderated(tmp_path_factory.mktemp("moderated") / "site")


@pytest.fixture
def site(moderated, tmp_path):  # type: ignore[no-untyped-def]
    return moderated.copy(tmp_path / "site")


@pytest.fixture
def m1(moderated, site):  # type: ignore[no-untyped-def]
    yield from moderated.signed_in(site)


def test_the_screen_lists_views_and_renders_hostile_rows_inert_c53(site, m1):
    for body in HOSTILE:
        add(site, 1, body=body, name="\u202eevil name")
    page = m1.get("/guanli/comments?status=pending")
    assert page.status_code == 200
    assert "<script>alert(1)</script>" not in page.text
    assert "&lt;script&gt;" in page.text
    assert 'Pending <span class="guanli-views__n">(4)</span>' in page.text
    assert "unverified" in page.text and "Harbour lights" in page.text
    assert m1.get("/guanli/comments?per_page=7").status_code == 400
    assert m1.get("/guanli/comments?day=2024-13-40").status_code == 400
    assert m1.get("/guanli/comments?status=bogus").status_code == 400


def test_ticked_rows_act_on_their_ids_only_and_undo_c53(site, m1):
    ids = add(site, 60)
    page2 = m1.get("/guanli/comments?status=pending&page=2")  # rows 21-40, newest first
    ticked = [int(i) for i in re.findall(r'name="ids" value="(\d+)"', page2.text)][:20]
    assert ticked == ids[::-1][20:40]
    add(site, 5, status="spam", body="newcomer {i}")  # arrive at the top meanwhile
    m2 = signed_client(site, "m2")
    db = Database(site.database_path)
    moderation.moderate(db, "approve", ticked[:3], "editor:m2")  # another moderator
    db.close()
    done = m1.post(
        "/guanli/comments/act",
        data={
            "csrf": csrf(page2),
            "action": "spam",
            "ids": [str(i) for i in ticked],
            "seen": re.findall(r'name="seen" value="([^"]+)"', page2.text),
            "back": "/guanli/comments?status=pending&page=2",
        },
    )
    assert done.status_code == 303
    notice = m1.get(done.headers["location"])
    shown = re.search(r"<div class=\"guanli-notice\" role=\"status\">(.*?)</p>", notice.text, re.S)
    assert (
        shown
        and "17 marked as spam. 3 skipped: changed since you loaded the page." in shown.group(1)
    ), (done.headers["location"], shown)
    assert statuses(site, ticked[:3]) == ["approved"] * 3
    assert statuses(site, ticked[3:]) == ["spam"] * 17
    undone = m1.post(
        "/guanli/comments/undo",
        data={
            "csrf": csrf(notice),
            "notice": re.search(r'name="notice" value="(\d+)"', notice.text).group(1),
        },
    )
    assert undone.status_code == 303
    assert statuses(site, ticked[3:]) == ["pending"] * 17
    assert statuses(site, ticked[:3]) == ["approved"] * 3
    m2.__exit__(None, None, None)


def test_all_matching_is_bound_to_what_was_seen_and_confirmed_c53(site, m1):
    add(site, 30)
    add(site, 3, body="a friendly note {i}")
    listing = m1.get("/guanli/comments?status=pending&q=evil.example")
    assert "all 30 matching this filter" in listing.text
    found = re.findall(
        r'<input type="hidden" name="(\w+)" value="([^"]*)"',
        listing.text.split('id="g-bulk"')[1].split("<table")[0],
    )
    form = {k: html.unescape(v) for k, v in found}  # as a browser sends them
    assert form["expect"] == "30"
    add(site, 2)  # two more matching arrive while the editor reads
    ask = m1.post("/guanli/comments/act", data={**form, "action": "trash", "scope": "all"})
    assert ask.status_code == 200
    assert "Move 30 comments to the trash?" in ask.text
    assert "Comments that arrived after you loaded the page are not included." in ask.text
    # the confirmation answers a POST: its language switch leads to a page a link can load,
    # the listing it came from, with its filters
    switch = html.unescape(re.search(r'<a href="([^"]*)" hreflang="zh-Hans"', ask.text)[1])  # type: ignore[index]
    listing = {"status": "pending", "q": "evil.example", "ui": "zh"}
    assert switch == "/guanli/comments?" + urlencode(listing)
    assert m1.get(switch).status_code == 200
    m1.get("/guanli/?ui=en")  # the choice is remembered (a cookie): back to English
    confirm = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', ask.text))
    done = m1.post("/guanli/comments/act", data=confirm)
    assert done.status_code == 303
    assert "30 moved to the trash." in m1.get(done.headers["location"]).text
    db = Database(site.database_path)
    assert moderation.status_counts(db.read())["trash"] == 30
    assert (
        moderation.status_counts(db.read())["pending"] == 5
    )  # 3 friendly notes and the 2 newcomers
    db.close()
    again = m1.post("/guanli/comments/act", data=confirm)  # re-submitting is harmless
    assert again.status_code == 409


def test_empty_spam_spares_newcomers_and_asks_first(site, m1):
    spam = add(site, 4, status="spam")
    listing = m1.get("/guanli/comments?status=spam")
    snapshot = re.search(r'name="snapshot" value="(\d+)"', listing.text).group(1)
    late = add(site, 1, status="spam", body="late spam")
    data = {
        "csrf": csrf(listing),
        "status": "spam",
        "snapshot": snapshot,
        "back": "/guanli/comments?status=spam",
    }
    ask = m1.post("/guanli/comments/empty", data=data)
    assert "Delete the 4 spam comments listed permanently?" in ask.text
    done = m1.post("/guanli/comments/empty", data={**data, "confirm": "1"})
    assert done.status_code == 303
    db = Database(site.database_path)
    assert all(cs.get(db.read(), i) is None for i in spam)
    assert cs.get(db.read(), late[0]).status == "spam"
    db.close()


def test_posts_from_elsewhere_or_without_the_token_change_nothing(site, m1):
    ids = add(site, 2)
    page = m1.get("/guanli/comments")
    forged = m1.post(
        "/guanli/comments/act",
        data={"csrf": csrf(page), "action": "approve", "ids": [str(i) for i in ids]},
        headers={"Origin": "https://evil.example"},
    )
    assert forged.status_code == 403
    missing = m1.post("/guanli/comments/act", data={"action": "approve", "ids": str(ids[0])})
    assert missing.status_code == 403
    assert statuses(site, ids) == ["pending", "pending"]


def test_search_by_ip_finds_the_hashed_address(site, m1):
    from masthead.comments import identity

    db = Database(site.database_path)
    secret = site_secrets.site_secret(db)
    key = db.read().execute("SELECT translation_key FROM posts WHERE url = '/posts/a/'").fetchone()
    for ip, body in (("198.51.100.7", "from seven"), ("198.51.100.8", "from eight")):
        cs.add(
            db,
            new_comment(key[0], body, status="pending", ip_hash=identity.ip_hash(secret, ip)),
            "reader",
        )
    db.close()
    found = m1.get("/guanli/comments?q=198.51.100.7")
    assert "from seven" in found.text and "from eight" not in found.text


def test_reply_as_the_editor_and_quick_edit_c33(site, m1):
    (cid,) = add(site, 1, status="approved", body="Lovely piece", name="Ann")
    page = m1.get("/guanli/comments")
    token = csrf(page)
    done = m1.post(
        "/guanli/comments/reply",
        data={"csrf": token, "id": str(cid), "body": "Thank you, **Ann**!"},
    )
    assert done.status_code == 303
    assert "Your reply is published." in m1.get(done.headers["location"]).text
    db = Database(site.database_path)
    reply = next(c for c in cs.all_comments(db.read()) if c.parent_id == cid)
    assert (reply.status, reply.author_user, reply.author_name) == ("approved", "m1", "m1")
    assert reply.body_html.strip() == "<p>Thank you, <strong>Ann</strong>!</p>"
    assert (
        m1.post(
            "/guanli/comments/reply", data={"csrf": token, "id": str(cid), "body": " "}
        ).status_code
        == 400
    )
    edited = m1.post(
        "/guanli/comments/edit",
        data={
            "csrf": token,
            "id": str(cid),
            "body": "Lovely piece <script>alert(1)</script>",
            "name": "Ann\u202e <b>",
            "email": "ann@example.org",
            "url": "javascript:alert(1)",
        },
    )
    assert edited.status_code == 303
    after = cs.get(db.read(), cid)
    assert after.author_url == "" and after.author_name == "Ann <b>"
    assert "<script>" not in after.body_html and after.body.endswith("<script>alert(1)</script>")
    history = audit_log.history(db.read(), cid)
    assert history[-1]["actor"] == "editor:m1" and "Lovely piece" in history[-1]["detail"]
    db.close()
    assert (
        m1.post(
            "/guanli/comments/edit", data={"csrf": token, "id": "99999", "body": "x"}
        ).status_code
        == 404
    )


def test_a_skipped_row_says_the_real_reason_not_changed_since_loaded(site, m1):
    """Issue 29, item 4: Approve on a spam comment is not a change made by someone else."""
    spam = add(site, 1, status="spam")
    pending = add(site, 2)
    page = m1.get("/guanli/comments")
    db = Database(site.database_path)
    moderation.moderate(db, "approve", pending[:1], "editor:m2")  # already approved meanwhile
    db.close()
    done = m1.post(
        "/guanli/comments/act",
        data={
            "csrf": csrf(page),
            "action": "approve",
            "ids": [str(i) for i in spam + pending],
            "seen": re.findall(r'name="seen" value="([^"]+)"', page.text),
            "back": "/guanli/comments",
        },
    )
    notice = m1.get(done.headers["location"])
    shown = re.search(r"<div class=\"guanli-notice\" role=\"status\">(.*?)</p>", notice.text, re.S)
    assert shown, notice.text
    text = html.unescape(shown.group(1))
    assert "1 skipped: in Spam: use Not spam." in text
    assert "1 skipped: already approved." in text
    assert "changed since you loaded the page" not in text
    assert statuses(site, spam + pending) == ["spam", "approved", "approved"]


@pytest.mark.parametrize(
    ("view", "offered"),
    [
        ("", ["approve", "unapprove", "spam", "trash"]),
        ("pending", ["approve", "spam", "trash"]),
        ("approved", ["unapprove", "spam", "trash"]),
        ("spam", ["notspam", "delete"]),
        ("trash", ["restore", "delete"]),
    ],
)
def test_the_bulk_menu_offers_only_the_actions_valid_for_the_view(site, m1, view, offered):
    page = m1.get(f"/guanli/comments?status={view}" if view else "/guanli/comments")
    menu = re.search(r'<select id="g-action".*?</select>', page.text, re.S).group(0)
    assert re.findall(r'<option value="(\w+)">', menu) == offered
