"""Sanitizing readers' text (issue 11 item 6): the comment Markdown subset with nh3 last, imported
HTML, websites and names; cases C33 (XSS through the author fields, loaded in real Chromium:
nothing runs), C35 (code keeps its `<…>`, the source is stored as sent) and C36 (emoji whole,
lengths counted alike in the browser and the server, previews cut on grapheme boundaries)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

import pytest
from bs4 import BeautifulSoup
from hypothesis import given, settings
from hypothesis import strategies as st
from jinja2 import Environment

from masthead.comments import rules, sanitize, text
from masthead.comments.rules import Facts, Submission
from masthead.config import Settings
from masthead.store import comments as store

from support.comments_rig import HARBOUR, Rig, rig_factory
from support.sites import DATA

CASES = DATA / "cases"
REL = "nofollow ugc noopener noreferrer"


def case(name: str) -> dict:
    return json.loads((CASES / name).read_text(encoding="utf-8"))


@pytest.fixture
def rig(tmp_path) -> Iterator[Callable[..., Rig]]:
    yield from rig_factory(tmp_path)


# --- render: the Markdown subset, nh3 last -----------------------------------------------------


def test_render_keeps_the_subset_and_drops_the_rest():
    html = sanitize.render(
        "# Not a heading\n\n*em* **strong** ~~gone~~ `code`\n"
        "line two\n\n> quoted\n\n- one\n- two\n\n1. first\n\n"
        "```\nblock\n```\n\n![img](https://example.org/i.png)\n\n<b>raw</b> <script>x()</script>"
    )
    soup = BeautifulSoup(html, "html.parser")
    names = {tag.name for tag in soup.find_all(True)}
    assert names == {
        "p",
        "em",
        "strong",
        "s",
        "code",
        "br",
        "blockquote",
        "ul",
        "ol",
        "li",
        "pre",
        "a",
    }
    assert "# Not a heading" in soup.get_text()
    assert "<b>raw</b> <script>x()</script>" in soup.get_text()  # shown, not run
    assert soup.find("a")["href"] == "https://example.org/i.png"  # an image is only a link


@pytest.mark.parametrize(
    ("markdown", "href"),
    [
        ("[a](https://example.org/?x=1&y=2)", "https://example.org/?x=1&y=2"),
        ("<https://example.org/auto>", "https://example.org/auto"),
        ("[mail](mailto:alice@example.org)", "mailto:alice@example.org"),
        ("[rel](/posts/other/)", None),
        ("[proto](//evil.example/)", None),
        ("[js](javascript:alert(1))", None),
        ("[js](JaVaScRiPt:alert(1))", None),
        ("[js](java&#9;script:alert(1))", None),
        ("[data](data:text/html;base64,PHNjcmlwdD4=)", None),
        ("[vb](vbscript:msgbox(1))", None),
        ("[ref][r]\n\n[r]: javascript:alert(1)", None),
    ],
)
def test_links_are_http_or_mailto_with_rel(markdown, href):
    soup = BeautifulSoup(sanitize.render(markdown), "html.parser")
    links = soup.find_all("a")
    assert all(a.get("href") == href for a in links)
    assert all(a["rel"] == REL.split() for a in links)


def test_clean_is_the_same_allowlist_for_imported_html():
    html = sanitize.clean(
        '<p>Hi <b>there</b> <i>you</i> <a href="http://a.example" onclick="x()" target="_blank">'
        "site</a></p><img src=x onerror=alert(1)><script>alert(1)</script><style>p{}</style>"
        '<a href="javascript:alert(1)">js</a><iframe src="https://evil.example"></iframe>'
        '<blockquote cite="javascript:x">q</blockquote><!-- note --><h1>Big</h1>'
    )
    soup = BeautifulSoup(html, "html.parser")
    assert {t.name for t in soup.find_all(True)} == {"p", "b", "i", "a", "blockquote"}
    first, second = soup.find_all("a")
    assert first.attrs == {"href": "http://a.example", "rel": REL.split()}
    assert "href" not in second.attrs
    assert "alert" not in html and "note" not in html and "Big" in soup.get_text()


# --- C35: code keeps its angle brackets, the source is kept as sent ---------------------------

C35_SHOWN = ["foo<bar>", "<script>", '<div class="box">Hello</div>', "a < b and b > c", "<tag>"]


def test_c35_code_spans_keep_their_angle_brackets_escaped_once():
    for body, shown in zip(case("C35-comment-code-spans.json")["bodies"], C35_SHOWN, strict=True):
        html = sanitize.render(body)
        assert shown in BeautifulSoup(html, "html.parser").get_text()
        assert "&amp;lt;" not in html and "&amp;gt;" not in html
        assert "<script" not in html and "<div" not in html and "<bar" not in html


def test_c35_the_stored_text_is_what_was_submitted(rig):
    r = rig(comments_flood_seconds="0", comments_per_minute="0")
    for body in case("C35-comment-code-spans.json")["bodies"]:
        stored = r.comment(r.send(body).id)
        assert stored.body == body  # the edit form shows exactly this
        assert stored.body_html == sanitize.render(body)


# --- C33: the author fields ----------------------------------------------------------------------

C33_WEBSITES = [
    "https://example.com/%27%20onmouseover=%27alert(1)",
    "https://example.com/%22%20onmouseover=%22alert(1)",
    "",
    "",
    "",
    "",
    "",
    "",
    "",  # example.com: no scheme, not linked
    "",
    "https://example.com/a?x=1&y=%3C2%3E",
]


def test_c33_websites_are_http_urls_with_a_host_or_nothing():
    submissions = case("C33-comment-author-fields.json")["submissions"]
    got = [sanitize.website(s["website"]) for s in submissions]
    assert got == C33_WEBSITES


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        ("HTTP://EXAMPLE.org", "http://example.org/"),
        ("https://user:pw@example.org/", ""),  # pragma: allowlist secret
        ("https://example.com@evil.example/", ""),
        ("https://[2001:db8::1]:8443/x", "https://[2001:db8::1]:8443/x"),
        ("https://example.org:99999/", ""),
        ("https://exa mple.org/", ""),
        ("https:///path-only", ""),
        ("ftp://example.org/", ""),
        ("https://例子.中国/路径", "https://例子.中国/%E8%B7%AF%E5%BE%84"),
        ("\x00https://example.org/\x1b", "https://example.org/"),
    ],
)
def test_website_checks(raw, kept):
    assert sanitize.website(raw) == kept


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60) | st.text(max_size=40).map(lambda s: "https://example.org/" + s))
def test_a_kept_website_is_safe_in_any_attribute_and_stable(raw):
    url = sanitize.website(raw)
    if not url:
        return
    parts = urlsplit(url)
    assert parts.scheme in ("http", "https") and parts.hostname
    assert not any(c in url for c in "\"'<>` \t\n\r\\")
    assert sanitize.website(url) == url


def test_c33_names_are_one_line_of_text_and_markup_stays_text():
    assert sanitize.name("<b>Bob</b><script>alert(1)</script>") == (
        "<b>Bob</b><script>alert(1)</script>"
    )
    assert sanitize.name("  Eve\r\nBcc: victim@example.net\x00 ") == "Eve Bcc: victim@example.net"
    assert sanitize.name("abc\u202edcba") == "abcdcba"  # no reordering the text around it


# Every place a comment is shown escapes the name and quotes the href (Jinja's autoescape, as
# the app's templates); the comment HTML is the sanitized `body_html`.
PAGE = Environment(autoescape=True).from_string(
    """<!doctype html><html><body>
{% for c in comments %}
<article id="c-{{ c.id }}">
  {% if c.url %}<a class="author" href="{{ c.url }}" rel="nofollow ugc noopener noreferrer">{{
  c.name }}</a><a class="single" href='{{ c.url }}'>{{ c.name }}</a>{% else %}<span
  class="author">{{ c.name }}</span>{% endif %}
  <div class="body">{{ c.html|safe }}</div>
</article>
{% endfor %}
</body></html>"""
)
# Reports any script that runs (through a binding that outlives a navigation); a click on an
# http(s) or mailto link is kept from navigating (no script can run from one), a click on any
# other link goes ahead, so a `javascript:` URL would run.
CATCH = """
window.alert = window.confirm = window.prompt = function (m) { window.ran(String(m)); };
document.addEventListener("click", function (e) {
  var a = e.target.closest("a");
  if (a && a.href && /^(https?|mailto):$/.test(a.protocol)) e.preventDefault();
}, true);
"""
SITE = "https://example.com/c33/"  # answered by the test itself: no request leaves the browser


def test_c33_every_submission_shown_in_chromium_runs_nothing(rig, browser):
    off = {"comments_flood_seconds": "0", "comments_per_minute": "0", "comments_max_links": "0"}
    r = rig(comments_previously_approved="false", **off)
    submissions = case("C33-comment-author-fields.json")["submissions"]
    ids = []
    for i, s in enumerate(submissions):
        body = s["body"] + f" [{s['website'] or 'link'}]({s['website'] or 'x'}) #{i}"
        ids.append(r.send(body, name=s["author"], url=s["website"]).id)
    shown = store.public_thread(r.state.db.read(), r.comment(ids[0]).thread)
    assert [c.id for c in shown] == ids
    html = PAGE.render(comments=[c.public() for c in shown])

    page = browser.new_page()
    ran: list[str] = []
    page.expose_function("ran", lambda message: ran.append(message))
    page.on("dialog", lambda d: (ran.append(d.message), d.dismiss()))

    def answer(route) -> None:
        if route.request.url == SITE:
            route.fulfill(body=html, content_type="text/html; charset=utf-8")
        else:
            route.abort()

    page.route("**/*", answer)
    page.add_init_script(CATCH)
    page.goto(SITE)
    count = len(page.query_selector_all("a"))
    assert count >= 6  # the three kept websites, twice each, and the links in the texts
    for i in range(count):  # hover with the real mouse, then click, each link on a fresh page
        if page.url != SITE:
            page.goto(SITE)
        page.hover(f"a >> nth={i}")
        page.eval_on_selector_all("a", "(els, i) => els[i].click()", i)
        page.wait_for_timeout(30)
    assert ran == []
    if page.url != SITE:
        page.goto(SITE)
    assert page.query_selector_all("script, img, [onmouseover], [onerror]") == []
    names = page.eval_on_selector_all(".author", "els => els.map(e => e.textContent)")
    assert names == [s["author"] for s in submissions]
    hrefs = page.eval_on_selector_all(".author[href]", "els => els.map(e => e.href)")
    assert all(h.startswith("https://example.com/") for h in hrefs) and len(hrefs) == 3
    body_hrefs = page.eval_on_selector_all(".body a[href]", "els => els.map(e => e.href)")
    assert all(urlsplit(h).scheme in ("http", "https") for h in body_hrefs)
    page.close()


# --- C36: emoji and astral characters --------------------------------------------------------


def test_c36_text_round_trips_exactly(rig):
    r = rig(comments_flood_seconds="0")
    for s in case("C36-comment-emoji.json")["submissions"]:
        stored = r.comment(r.send(s["body"], name=s["author"]).id)
        assert (stored.author_name, stored.body) == (s["author"], s["body"])
        assert s["body"] in BeautifulSoup(stored.body_html, "html.parser").get_text()
        public = [c for c in store.public_thread(r.state.db.read(), stored.thread)]
        assert all("\ufffd" not in c.body_html for c in public)
        r.later(61)


def test_c36_previews_cut_on_grapheme_boundaries():
    body = case("C36-comment-emoji.json")["submissions"][1]["body"]
    assert "".join(text.graphemes(body)) == body
    family = "👨\u200d👩\u200d👧\u200d👦"  # 7 code points, one cluster, at the very end
    start = body.index(family)
    assert body.endswith(family)
    for n in range(start - 2, len(body) + 1):  # every cut through and around it
        short = text.preview(body, n)
        kept = short.removesuffix(text.ELLIPSIS)
        assert len(kept) <= n
        assert kept == body[: len(kept)]
        assert (family in kept) == (n >= len(body)), n  # whole, or not at all
        assert not kept.endswith(("\u200d", "👨", "👩", "👧"))
    assert text.preview(body, len(body)) == body
    first = case("C36-comment-emoji.json")["submissions"][0]["body"]
    for n in range(len(first)):
        kept = text.preview(first, n).removesuffix(text.ELLIPSIS)
        assert set(text.graphemes(kept)) <= set(text.graphemes(first))
        kept.encode("utf-8")  # no lone surrogate
    assert text.preview("a\n\n  b", 10) == "a b"
    assert text.preview("e\u0301" * 3, 3) == "e\u0301…"  # e + combining acute: one cluster


@pytest.mark.parametrize(
    ("name", "initials"),
    [
        ("Zoë 👩🏽‍💻", "Z👩🏽‍💻"),
        ("alice bob carol", "AB"),
        ("张伟", "张"),
        ("  ", ""),
        ("ßig", "ß"),
    ],
)
def test_c36_initials_never_split_a_character(name, initials):
    assert text.initials(name) == initials


def test_c36_lengths_are_counted_alike_in_chromium_and_on_the_server(browser):
    """The server counts code points (`text.length`), as the page's script does with
    `[...value].length`; a browser's `maxlength` counts UTF-16 units, never fewer, so whatever
    the form lets through the server takes: the form is never looser than the server."""
    texts = [
        s[k] for s in case("C36-comment-emoji.json")["submissions"] for k in ("author", "body")
    ]
    page = browser.new_page()
    page.set_content('<textarea id="t" maxlength="40"></textarea>')
    for value in texts:
        page.eval_on_selector("#t", "(e, v) => { e.value = v; }", value)
        assert page.eval_on_selector("#t", "e => [...e.value].length") == text.length(value)
        page.eval_on_selector("#t", "e => { e.value = ''; }")
        page.focus("#t")
        page.keyboard.insert_text(value)  # typed: the browser enforces maxlength
        kept, units = page.eval_on_selector("#t", "e => [e.value, e.value.length]")
        assert text.length(kept) <= units <= 40
        assert value.startswith(kept)
    page.close()


def test_c36_the_limit_counts_code_points_not_bytes_or_utf16_units():
    limit = rules.LIMITS.name
    ok = Submission(HARBOUR, None, "👩🏽‍💻" * (limit // 4), "a@example.org", "", "x")
    assert text.length(ok.name) <= limit < len(ok.name.encode("utf-16-le")) // 2
    assert rules.fields(ok) is None
    decision = rules.evaluate(ok, Facts(now=0.0), Settings())
    assert decision.status == "pending"
