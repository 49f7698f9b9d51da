"""The comment rules (issue 11 item 5) through the submission service, on a real site and a real
SQLite file: each rule in the issue's order with the reason it stores, and cases C37 (double
submit), C38 (flood control), C48 (a typed address proves nothing). Over HTTP: test_comments_ip.py
(C52) and the reader routes' own tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from masthead.accounts import service as accounts
from masthead.comments import identity, rules, text
from masthead.comments.submit import Outcome
from masthead.errors import CommentError
from masthead.store import audit_log, site_secrets
from masthead.store import comments as store

from support.comments_rig import HARBOUR, Rig, rig_factory
from support.sites import DATA


@pytest.fixture
def rig(tmp_path) -> Iterator[Callable[..., Rig]]:
    yield from rig_factory(tmp_path)


@pytest.fixture(scope="module")
def with_mei(tmp_path_factory) -> Path:
    """The database of a rig's site with the editor Mei (mei@example.com) added, made once a
    module: each test takes `rig(database=with_mei, …)` instead of hashing her password again."""
    made = next(rig_factory(tmp_path_factory.mktemp("mei")))()
    accounts.add_user(made.state.db, "Mei", "a long enough passphrase", email="mei@example.com")
    made.state.db.close()
    return made.state.site.database_path


def approve(rig: Rig, *ids: int) -> None:
    store.set_status(rig.state.db, ids, "approved", "editor:test")


def refused(call: Callable[[], object]) -> CommentError:
    with pytest.raises(CommentError) as caught:
        call()
    return caught.value


# --- the order, and reasons ----------------------------------------------------------------


def test_a_known_commenter_is_published_and_the_reason_is_stored(rig):
    r = rig()
    first = r.send("My first comment.")
    assert first.status == "pending"
    assert r.comment(first.id).reason == "first comment from this browser"
    approve(r, first.id)
    r.later(60)
    second = r.send("And a second one.")
    stored = r.comment(second.id)
    assert (second.status, stored.status, stored.reason) == (
        "approved",
        "approved",
        "known commenter",
    )
    create = [
        row for row in audit_log.history(r.state.db.read(), second.id) if row["action"] == "create"
    ]
    assert [(row["to_status"], row["detail"]) for row in create] == [
        ("approved", '{"reason": "known commenter"}')
    ]
    assert second.post_url == HARBOUR and second.thread == stored.thread and second.token


def test_with_previously_approved_off_a_stranger_is_published(rig):
    r = rig(comments_previously_approved="false")
    out = r.send()
    assert out.status == "approved"
    assert r.comment(out.id).reason == "passed every rule"


def test_a_rejection_ends_the_rules_before_any_is_stored(rig):
    """Length limits come before the honeypot: a 400 for the field, nothing stored as spam."""
    r = rig()
    err = refused(lambda: r.send("x" * (rules.LIMITS.body + 1), honeypot="filled"))
    assert (err.status, err.field) == (400, "body")
    assert r.count() == 0


def test_spam_outranks_a_hold_and_every_reason_is_kept(rig):
    r = rig(comments_moderation="true", disallowed_keys='["casino"]')
    out = r.send("Best CASINO in town: https://a.example https://b.example")
    stored = r.comment(out.id)
    assert out.status == "pending"  # a spammer is never told
    assert stored.status == "spam"
    assert stored.reason.split("; ") == [
        "contains the disallowed word 'casino'",
        "every comment is held (comments_moderation)",
        "first comment from this browser",
        "2 links (held at 2 or more)",
    ]


# --- 1. duplicate (C37) --------------------------------------------------------------------


def test_c37_the_same_comment_twice_is_answered_as_the_first(rig):
    r = rig()
    first = r.send("Double click!")
    r.later(0.2)
    again = r.send("Double click!")
    assert again == Outcome(first.id, first.status, True, first.token, HARBOUR, first.thread)
    assert r.count() == 1
    # a keyboard submit then a click, the text's trailing newline and CRLF aside: the same
    r.later(0.3)
    assert r.send("Double click!\r\n").id == first.id
    assert r.count() == 1


def test_c37_a_duplicate_from_another_browser_gets_no_edit_token(rig):
    r = rig()
    first = r.send("Same words.")
    other = r.send("Same words.", cookie="browser-2")
    assert (other.id, other.duplicate, other.token) == (first.id, True, "")


def test_c37_identical_submissions_at_the_same_moment_store_one(rig):
    r = rig()
    start = threading.Barrier(4)
    results: list[int] = []

    errors: list[BaseException] = []

    def one() -> None:
        start.wait()
        try:
            results.append(r.send("Sent four times at once.").id)
        except BaseException as exc:  # shown by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert r.count() == 1
    assert len(set(results)) == 1 and len(results) == 4


def test_c37_a_different_parent_or_text_is_another_comment(rig):
    r = rig(comments_flood_seconds="0")
    top = r.send("Top.")
    approve(r, top.id)
    reply = r.send("Top.", parent=str(top.id))
    other = r.send("Top!")
    assert len({top.id, reply.id, other.id}) == 3


# --- 2. flood (C38) ------------------------------------------------------------------------


def test_c38_one_client_posting_fast_gets_429_with_retry_after_and_a_message(rig):
    """Scenario a: 20 comments in 60 s across 5 posts, several with links."""
    r = rig()
    answers: list[Outcome | CommentError] = []
    for i in range(20):
        links = " https://x.example/a https://x.example/b" if i % 3 == 0 else ""
        try:
            answers.append(r.send(f"Comment {i}{links}", post=f"/posts/p{i % 5 + 1}/"))
        except CommentError as exc:
            answers.append(exc)
        r.later(3)
    stored = [a for a in answers if isinstance(a, Outcome)]
    throttled = [a for a in answers if isinstance(a, CommentError)]
    assert answers[:3] == stored and len(stored) == 3  # comments_per_minute = 3
    assert len(throttled) == 17 and all(a.status == 429 for a in throttled)
    assert all(a.retry_after and 1 <= a.retry_after <= 60 for a in throttled)
    assert "comments a minute" in throttled[0].message and "Please wait" in throttled[0].message
    # the ones with links were held for moderation, not dropped
    held = [r.comment(o.id) for o in stored if "links" in r.comment(o.id).reason]
    assert held and all(c.status == "pending" for c in held)
    # every throttled attempt is in the log
    logged = (
        r.state.db.read()
        .execute("SELECT count(*) FROM audit_log WHERE action = 'throttle'")
        .fetchone()[0]
    )
    assert logged == len(throttled)


def test_c38_per_minute_limit_counts_the_whole_site_and_lets_go_after_the_window(rig):
    r = rig(comments_flood_seconds="0")
    for i in range(3):
        r.send(f"Number {i}", post=f"/posts/p{i + 1}/")
        r.later(10)
    err = refused(lambda: r.send("Number 3", post="/posts/p4/"))
    assert (err.status, err.retry_after) == (429, 30)  # the first leaves the window at T0 + 60
    r.later(30)
    assert r.send("Number 3", post="/posts/p4/").id


def test_c38_flood_seconds_between_two_comments_in_one_thread(rig):
    r = rig()
    r.send("First.")
    r.later(5)
    err = refused(lambda: r.send("Second, too soon."))
    assert (err.status, err.retry_after, err.code) == (429, 10, "flood")
    assert "15 s" in err.message
    r.later(10)
    assert r.send("Second, in time.").id


def test_c38_b_one_reader_on_two_posts_30_s_apart_goes_through(rig):
    r = rig()
    r.send("On harbour lights.")
    r.later(30)
    assert r.send("On p1.", post="/posts/p1/").id
    assert r.count() == 2


def test_c38_c_two_readers_behind_one_nat_on_different_posts_go_through(rig):
    r = rig()
    a = r.send("Reader A here.", cookie="browser-a", name="A", email="a@example.org")
    r.later(2)
    b = r.send(
        "Reader B here.", post="/posts/p1/", cookie="browser-b", name="B", email="b@example.org"
    )
    assert a.id != b.id and r.count() == 2


def test_c38_a_signed_in_editor_is_exempt_from_the_limits_and_the_staff_hold(rig):
    r = rig(editor_emails='["editor@example.com"]')
    for i in range(6):  # faster than either limit allows, on one post
        out = r.send(f"Editor note {i}", email="editor@example.com", staff=True)
        assert (r.comment(out.id).status, r.comment(out.id).reason) == (
            "approved",
            "signed-in staff",
        )
    err = refused(lambda: r.send("Not signed in.", email="editor@example.com"))
    assert err.status == 429  # the same client without the session is limited


def test_zero_turns_each_per_client_limit_off(rig):
    r = rig(comments_flood_seconds="0", comments_per_minute="0")
    ids = {r.send(f"Comment {i}").id for i in range(8)}
    assert len(ids) == 8


def test_limits_are_per_client_address(rig):
    r = rig(comments_flood_seconds="0")
    for i in range(3):
        r.send(f"Mine {i}", ip="198.51.100.7")
    refused(lambda: r.send("Mine 3", ip="198.51.100.7"))
    assert r.send("Someone else", ip="198.51.100.8", cookie="b2", email="b@example.org").id


# --- 3. fields and lengths -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "limit"),
    [("name", 245), ("email", 100), ("url", 200), ("body", 65_525)],
)
def test_length_limits_in_code_points_with_a_message_naming_the_field(rig, field, limit):
    r = rig(comments_per_minute="0", comments_flood_seconds="0")
    assert rules.FIELD_LIMITS[field] == limit

    def value(n: int) -> str:
        if field == "email":
            return "a" * (n - len("@example.org")) + "@example.org"
        if field == "url":
            return "https://example.org/" + "😀" * (n - len("https://example.org/"))
        return "😀" * n  # one code point, two UTF-16 units, four UTF-8 bytes

    ok = r.send(**{field: value(limit), **({"body": "ok"} if field != "body" else {})})
    assert ok.id
    err = refused(lambda: r.send(**{field: value(limit + 1)}))
    assert (err.status, err.field, err.code) == (400, field, "too_long")
    assert f"{limit + 1} characters" in err.message and f"at most {limit}" in err.message


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"name": "   "}, "name"),
        ({"email": ""}, "email"),
        ({"body": " \n\t "}, "body"),
        ({"email": "not an address"}, "email"),
        ({"email": "a@example.org, victim@example.net"}, "email"),
        ({"email": "a@localhost"}, "email"),
    ],
)
def test_missing_or_malformed_fields_are_a_400_naming_the_field(rig, fields, field):
    r = rig()
    err = refused(lambda: r.send(**fields))
    assert (err.status, err.field) == (400, field)
    assert r.count() == 0


def test_a_website_that_is_not_http_is_dropped_and_the_comment_kept(rig):
    r = rig(comments_flood_seconds="0")
    out = r.send(url="javascript:alert(1)")
    assert r.comment(out.id).author_url == ""
    out = r.send("Another.", url="  HTTPS://Example.org/a b ")
    assert r.comment(out.id).author_url == "https://example.org/a%20b"


# --- 4, 5. honeypot and fill time -----------------------------------------------------------


def test_a_filled_honeypot_is_spam_answered_as_pending(rig):
    r = rig(comments_previously_approved="false")
    out = r.send(honeypot="http://spam.example")
    assert out.status == "pending"
    stored = r.comment(out.id)
    assert (stored.status, stored.reason) == ("spam", "the hidden field was filled in")


@pytest.mark.parametrize(
    ("elapsed", "status"),
    [(None, "approved"), (5.0, "approved"), (3.0, "approved"), (1.2, "pending"),
     (-4.0, "pending"), (float("nan"), "pending")],
)  # fmt: skip
def test_a_scripted_form_sent_too_soon_is_held_not_spam(rig, elapsed, status):
    """Speed alone proves no spam (a paste, an autofill): such a comment waits for an editor,
    with the reason stored (issue 29 item 1)."""
    r = rig(comments_previously_approved="false")
    out = r.send(elapsed=elapsed)
    stored = r.comment(out.id)
    assert (out.status, stored.status) == (status, status)
    if status == "pending":
        assert "after the form was shown (at least 3 s)" in stored.reason


def test_a_fast_submit_with_a_disallowed_word_is_still_spam(rig):
    r = rig(comments_previously_approved="false", disallowed_keys='["casino"]')
    stored = r.comment(r.send("casino", elapsed=0.5).id)
    assert stored.status == "spam"
    assert stored.reason.split("; ")[0] == "contains the disallowed word 'casino'"


def test_min_seconds_zero_turns_the_fill_time_rule_off(rig):
    r = rig(comments_previously_approved="false", comments_min_seconds="0")
    assert r.comment(r.send(elapsed=0.1).id).status == "approved"


# --- 6-9. holds and spam ---------------------------------------------------------------------


def test_comments_moderation_holds_even_a_known_commenter(rig):
    r = rig(comments_moderation="true")
    first = r.send("One.")
    approve(r, first.id)
    r.later(60)
    out = r.send("Two.")
    assert out.status == "pending"
    assert r.comment(out.id).reason == "every comment is held (comments_moderation)"


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ("One link: https://a.example", "approved"),
        ("[one](https://a.example) and <https://b.example>", "pending"),
        ("Two bare ones: https://a.example www.b.example", "pending"),
        ("Code is no link: `https://a.example` `https://b.example`", "approved"),
    ],
)
def test_max_links_holds_a_comment_with_that_many_links(rig, body, status):
    r = rig(comments_previously_approved="false")
    stored = r.comment(r.send(body).id)
    assert stored.status == status
    if status == "pending":
        assert stored.reason == "2 links (held at 2 or more)"


@pytest.mark.parametrize(
    "fields",
    [
        {"body": "I love VIAGRA"},
        {"name": "ViAgRa seller"},
        {"email": "viagra@example.org"},
        {"url": "https://viagra.example/"},
        {"ip": "203.0.113.99"},
    ],
)
def test_moderation_and_disallowed_keys_match_every_field_case_insensitively(rig, fields):
    held = rig(comments_previously_approved="false", moderation_keys='["viagra", "203.0.113."]')
    out = held.send(**fields)
    stored = held.comment(out.id)
    assert stored.status == "pending" and "contains the moderation word" in stored.reason
    spam = rig(comments_previously_approved="false", disallowed_keys='[" Viagra ", "203.0.113."]')
    stored = spam.comment(spam.send(**fields).id)
    assert stored.status == "spam" and "contains the disallowed word" in stored.reason


def test_blank_keys_match_nothing(rig):
    r = rig(comments_previously_approved="false", disallowed_keys='["", "  "]')
    assert r.comment(r.send().id).status == "approved"


# --- C48: a typed address proves nothing ------------------------------------------------------

# the case's input, as given in cases/README.md (posted as form fields, without a session)
C48 = json.loads((DATA / "cases" / "C48-claimed-addresses.json").read_text(encoding="utf-8"))


def test_c48_none_of_the_four_is_published_and_each_says_why(rig):
    r = rig(editor_emails='["editor@example.com"]', comments_flood_seconds="0")
    alice = []
    for i in range(3):  # Alice's three approved comments, from her own browser
        alice.append(r.send(f"Alice {i}", cookie="alice-browser", url="https://alice.example.org/"))
        r.later(30)
    approve(r, *(a.id for a in alice))
    r.later(120)
    answers = []
    for i, fields in enumerate(C48):  # from the attacker's browser, no session
        fields = {("url" if k == "website" else k): v for k, v in fields.items()}
        answers.append(r.send(cookie="attacker-browser", ip=f"203.0.113.{i + 1}", **fields))
    stored = [r.comment(a.id) for a in answers]
    assert [a.status for a in answers] == ["pending"] * 4
    assert [c.status for c in stored] == ["pending"] * 4
    assert [c.reason for c in stored] == [
        "claims a staff address",
        "claims a staff address",
        "first comment from this browser",
        "first comment from this browser",
    ]
    # a new comment carries only its own fields: Alice's stay as they were
    assert {r.comment(a.id).author_url for a in alice} == {"https://alice.example.org/"}
    assert stored[2].author_url == "https://evil.example/"
    # and Alice herself, from her browser, is still known
    assert r.send("Alice again", cookie="alice-browser").status == "approved"


def test_c48_a_staff_address_is_held_even_when_previous_approval_is_off(rig):
    r = rig(editor_emails='["Editor@Example.com"]', comments_previously_approved="false")
    for email in ("editor@example.com", "EDITOR+news@example.com"):
        stored = r.comment(r.send(f"As {email}", email=email).id)
        assert (stored.status, stored.reason) == ("pending", "claims a staff address")
        r.later(20)
    assert r.comment(r.send("A reader.", email="reader@example.com").id).status == "approved"


def test_c48_a_guanli_users_address_is_a_staff_address(rig):
    r = rig(comments_previously_approved="false", comments_flood_seconds="0")
    accounts.add_user(r.state.db, "wen", "a long enough passphrase", email="Wen@Example.com ")
    stored = r.comment(r.send("I run this site.", name="W.", email=" wen@example.COM").id)
    assert (stored.status, stored.reason) == ("pending", "claims a staff address")
    assert r.comment(r.send("A reader.", email="reader@example.com").id).status == "approved"


# a staff name under disguises: case, NFKC (full width), zero-width characters, Cyrillic е and
# і, Greek ο, a soft hyphen, a word joiner, spacing
@pytest.mark.parametrize(
    "name",
    ["mei", "MEI", "Mei", "m\u0435i", "m\u200bei", "\uff4d\uff45\uff49", "m\u0435\u0456",
     "me\u00adi", "m\u2060ei", " M e i ", "\u041cei"],
)  # fmt: skip
def test_a_readers_name_folding_to_a_staff_name_is_held(rig, with_mei, name):
    """Issue 29 item 2: `mei`, `mеi` (Cyrillic е) and `m\\u200bei` were accepted."""
    r = rig(database=with_mei, comments_previously_approved="false")
    out = r.send("I am the editor, trust me.", name=name)
    stored = r.comment(out.id)
    assert (out.status, stored.status, stored.reason) == ("pending", "pending", "uses a staff name")


@pytest.mark.parametrize("name", ["Meiling", "Méi", "me", "Alice", "梅"])
def test_a_name_that_only_resembles_a_staff_name_passes(rig, with_mei, name):
    r = rig(database=with_mei, comments_previously_approved="false")
    assert r.comment(r.send("A reader.", name=name).id).status == "approved"


def test_a_signed_in_staff_member_may_use_their_own_name(rig, with_mei):
    r = rig(database=with_mei, comments_previously_approved="false")
    stored = r.comment(r.send("From the desk.", name="Mei", staff=True).id)
    assert (stored.status, stored.reason) == ("approved", "signed-in staff")


def test_c48_without_a_cookie_no_one_is_known(rig):
    r = rig()
    first = r.send("Hello", cookie="alice-browser")
    approve(r, first.id)
    r.later(60)
    stored = r.comment(r.send("No cookie this time", cookie=None).id)
    assert (stored.status, stored.reason) == ("pending", "first comment from this browser")


# --- the post and the thread -----------------------------------------------------------------


def test_a_translation_shares_the_thread_and_keeps_its_language(rig):
    r = rig(comments_flood_seconds="0", comments_per_minute="0")
    en = r.send("In English.")
    zh = r.send("中文评论。", post="/zh/posts/harbour-lights/")
    assert en.thread == zh.thread
    assert (r.comment(en.id).lang, r.comment(zh.id).lang) == ("en", "zh")
    assert (r.comment(en.id).post_url, zh.post_url) == (HARBOUR, "/zh/posts/harbour-lights/")
    assert r.comment(r.send("Told zh.", lang="zh").id).lang == "zh"
    assert r.comment(r.send("Unknown lang.", lang="xx").id).lang == "en"


@pytest.mark.parametrize(
    ("post", "status"),
    [
        ("/posts/closed/", 403),
        ("/posts/no-such-post/", 404),
        ("posts/harbour-lights/", 400),
        ("//evil.example/posts/harbour-lights/", 400),
        ("https://evil.example/posts/harbour-lights/", 400),
        ("javascript:alert(1)", 400),
        ("", 400),
    ],
)
def test_closed_missing_or_malformed_posts_are_refused(rig, post, status):
    r = rig()
    err = refused(lambda: r.send(post=post))
    assert err.status == status
    if status != 403:
        assert err.field == "post"
    assert r.count() == 0


def test_the_post_may_be_given_as_its_absolute_url_or_without_the_slash(rig):
    r = rig(comments_flood_seconds="0")
    assert r.send(post="https://example.com/posts/harbour-lights/?c=1#form").post_url == HARBOUR
    assert r.send("Two.", post="/posts/harbour-lights").post_url == HARBOUR


def test_comments_close_after_days(rig):
    r = rig(comments_close_after_days="30")
    err = refused(lambda: r.send(post="/posts/old/"))
    assert err.status == 403 and "30 days" in err.message
    assert r.send(post="/posts/p1/").id  # 27 days old


@pytest.mark.parametrize("parent", ["abc", "-1", "1.5", "٣", "9" * 30])
def test_a_malformed_parent_is_a_400(rig, parent):
    err = refused(lambda: rig().send(parent=parent))
    assert (err.status, err.field) == (400, "parent")


def test_a_reply_goes_under_an_approved_comment_of_the_same_thread_only(rig):
    r = rig(comments_flood_seconds="0", comments_per_minute="0")
    top = r.send("Top.")
    err = refused(lambda: r.send("To a pending one.", parent=top.id))
    assert (err.status, err.field) == (400, "parent")
    approve(r, top.id)
    reply = r.send("A reply.", parent=top.id)
    assert r.comment(reply.id).parent_id == top.id
    # the Chinese page shares the thread: a reply from there goes under it too
    assert r.comment(r.send("回复", post="/zh/posts/harbour-lights/", parent=top.id).id).parent_id
    other = r.send("Elsewhere.", post="/posts/p1/")
    approve(r, other.id)
    err = refused(lambda: r.send("Cross-thread.", parent=other.id))
    assert (err.status, err.field) == (400, "parent")
    assert refused(lambda: r.send("To nothing.", parent=999)).status == 400


def test_the_edit_token_is_for_that_comment_and_expires(rig):
    r = rig()
    out = r.send()
    secret = site_secrets.site_secret(r.state.db)
    minutes = r.state.site.settings.comments_edit_minutes
    now, key = r.now[0], r.comment(out.id).token_key
    assert identity.check_edit_token(secret, out.token, out.id, key, minutes * 60, now=now + 60)
    assert not identity.check_edit_token(secret, out.token, out.id + 1, key, minutes * 60, now=now)
    late = now + 901
    assert not identity.check_edit_token(secret, out.token, out.id, key, minutes * 60, now=late)
    # the same id on another row (a restore, a delete of the newest rows): another key
    other = store.new_token_key()
    assert not identity.check_edit_token(secret, out.token, out.id, other, minutes * 60, now=now)
    assert not identity.check_edit_token(secret, out.token, out.id, "", minutes * 60, now=now)


def test_the_ip_is_stored_as_a_keyed_hash_only(rig):
    r = rig()
    stored = r.comment(r.send(ip="198.51.100.7", cookie="c1").id)
    secret = site_secrets.site_secret(r.state.db)
    assert stored.ip_hash == identity.ip_hash(secret, "198.51.100.7")
    assert stored.client_hash == identity.client_hash(secret, "c1")
    row = r.state.db.read().execute("SELECT * FROM comments").fetchone()
    assert not any("198.51.100.7" in str(value) for value in tuple(row))


# --- hostile input: a 4xx or a comment, never anything else -----------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

ANY_TEXT = st.text(st.characters(codec=None), max_size=80)  # lone surrogates, NUL, controls


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    post=st.sampled_from([HARBOUR, "/zh/posts/harbour-lights/", "http://[", "/%00/"]) | ANY_TEXT,
    parent=st.none() | st.integers(-5, 2**70).map(str) | ANY_TEXT,
    name=ANY_TEXT,
    email=st.sampled_from(["a@example.org"]) | ANY_TEXT,
    url=ANY_TEXT,
    body=ANY_TEXT,
    lang=ANY_TEXT,
    honeypot=ANY_TEXT,
    ip=st.sampled_from(["198.51.100.7", "", "::1"]) | st.text(max_size=20),
    elapsed=st.none() | st.floats(allow_nan=True),
)
def test_any_submission_is_a_comment_or_a_4xx(rig_once, post, parent, name, email, url, body,
                                              lang, honeypot, ip, elapsed):  # fmt: skip
    r = rig_once
    try:
        out = r.send(body, post=post, parent=parent, name=name, email=email, url=url,
                     lang=lang, honeypot=honeypot, ip=ip, elapsed=elapsed)  # fmt: skip
    except CommentError as exc:
        assert 400 <= exc.status < 500 and exc.message
        return
    stored = r.comment(out.id)
    assert stored.body == text.normalize(body)  # as sent, but line breaks and controls
    assert not any(c in stored.body for c in "\r\x00\x1b\x7f")
    assert "<script" not in stored.body_html


@pytest.fixture
def rig_once(rig) -> Rig:
    return rig(comments_flood_seconds="0", comments_per_minute="0")
