"""Hugo's three front-matter formats: YAML (`---`), TOML (`+++`) and JSON (an object at the top).

The bug cases of YAML front matter (tests/test_content_cases.py: C01 BOM, C02 CRLF, C03 dates
without a zone, C05 typed text, C07 tags, C09 delimiters, C10 broken files) are checked here for
TOML and JSON too: the same post, the same errors with file lines.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from masthead.config import Site
from masthead.content import frontmatter
from masthead.content.model import Post
from masthead.content.post import parse_post
from masthead.errors import ContentError, ContentIssue
from masthead.indexing.check import check_site
from masthead.indexing.indexer import index_site
from masthead.store import posts as store
from masthead.store.db import Database

from support.sites import BILINGUAL_TOML, write_site

SHANGHAI = ZoneInfo("Asia/Shanghai")

YAML = """---
title: "Harbour lights"
date: 2024-05-02T06:30:00
tags: [sea, night]
slug: harbour
translationKey: 1.10
---

The harbour at night.
"""
TOML = """+++
title = "Harbour lights"
date = 2024-05-02T06:30:00
tags = ["sea", "night"]
slug = "harbour"
translationKey = 1.10
+++

The harbour at night.
"""
JSON = """{
  "title": "Harbour lights",
  "date": "2024-05-02T06:30:00",
  "tags": ["sea", "night"],
  "slug": "harbour",
  "translationKey": 1.10
}

The harbour at night.
"""


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return write_site(tmp_path / "site", {"posts/.keep": ""}, BILINGUAL_TOML)


def parse(site: Site, raw: str | bytes, name: str = "x.md") -> Post:
    data = raw.encode() if isinstance(raw, str) else raw
    return parse_post(site, "posts/" + name, data)


def error(site: Site, raw: str | bytes) -> ContentIssue:
    with pytest.raises(ContentError) as info:
        parse(site, raw)
    return info.value.issue


def same(post: Post) -> tuple:
    return (post.title, post.date, post.tags, post.slug, post.translation_key, post.html)


@pytest.mark.parametrize("text", [TOML, JSON], ids=["toml", "json"])
def test_toml_and_json_give_the_post_yaml_gives(site: Site, text: str) -> None:
    post = parse(site, text)
    assert same(post) == same(parse(site, YAML))
    assert post.date == datetime(2024, 5, 2, 6, 30, tzinfo=SHANGHAI)  # C03: the site's zone
    assert post.translation_key == "k:1.10"  # C05: the digits typed, not the float 1.1
    assert post.html.strip() == "<p>The harbour at night.</p>"


@pytest.mark.parametrize("text", [TOML, JSON], ids=["toml", "json"])
@pytest.mark.parametrize("variant", ["bom", "crlf", "cr"])
def test_bom_and_line_endings_kind(site: Site, text: str, variant: str) -> None:
    raw = {
        "bom": b"\xef\xbb\xbf" + text.encode(),
        "crlf": text.replace("\n", "\r\n").encode(),
        "cr": text.replace("\n", "\r").encode(),
    }[variant]
    assert same(parse(site, raw)) == same(parse(site, text))


def test_key_lines_are_file_lines() -> None:
    fm = frontmatter.split("p", TOML)
    assert fm.lines["title"] == 2 and fm.lines["translationKey"] == 6 and fm.body_line == 8
    fm = frontmatter.split("p", JSON)
    assert fm.lines["title"] == 2 and fm.lines["translationKey"] == 6 and fm.body_line == 8
    assert fm.body == "\nThe harbour at night.\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('+++\ntitle = "T"\n+++', {"title": "T"}),  # C09 d: closing at the end of the file
        ("+++\n+++\nB", {}),  # C09 c: an empty block
        ("+++\n# a comment\n+++\nB", {}),  # C09 b
        ('+++\ntags = "a, b"\n+++\n', {"tags": "a, b"}),
        ("+++\ntitle = 2024\ndraft = true\n+++\n", {"title": "2024", "draft": True}),
        ("+++\nweight = 1.5\n+++\n", {"weight": 1.5}),
        ('+++\ntitle = "T"\n[params]\nx = 1\n+++\n', {"title": "T", "params": {"x": 1}}),
        ('{"title": "T"}', {"title": "T"}),
        ('{"title": true, "n": 2.5, "x": null}', {"title": "true", "n": 2.5, "x": None}),
        ('  {"title": "T"}\nbody', {"title": "T"}),
    ],
)
def test_split_kind(text: str, expected: dict) -> None:
    data = frontmatter.split("p", text).data
    assert data == expected
    assert all(type(v) is not float or type(v) is float for v in data.values())
    assert not any(type(v).__name__ == "Number" for v in data.values())


def test_toml_dates_and_times(site: Site) -> None:
    head = '+++\ntitle = "T"\ndate = {}\n+++\nB'
    assert parse(site, head.format("2024-05-02")).date == datetime(2024, 5, 2, tzinfo=SHANGHAI)
    offset = parse(site, head.format("2024-05-01T23:00:00Z")).date
    assert offset == datetime(2024, 5, 2, 7, tzinfo=SHANGHAI)
    assert "not a date" in error(site, head.format("06:30:00")).reason


def test_c07_tags_in_toml_and_json(site: Site) -> None:
    toml = '+++\ntitle = "T"\ndate = 2024-03-01\ntags = "机器学习，深度学习、自然语言处理"\n+++\n'
    assert [t.name for t in parse(site, toml).tags] == ["机器学习", "深度学习", "自然语言处理"]
    text = '{"title": "T", "date": "2024-03-01", "tags": ["Python", "python", " python "]}'
    assert [t.name for t in parse(site, text).tags] == ["Python"]


@pytest.mark.parametrize(
    ("raw", "line", "words"),
    [
        # C09 a: never closed
        ('+++\ntitle = "T"\ndate = 2024-03-01\n\nBody', 1, "never closed (add a '+++' line"),
        ('{\n  "title": "T",\n  "date": "2024-03-01"\n', 1, "never closed"),
        # C10: the line and a hint
        ('+++\ntitle = "T"\ndate = 2024-03-01\ntags = [a]\n+++\nB', 4, "Invalid value"),
        ("+++\ntitle = Release notes\n+++\nB", 2, "TOML strings are quoted"),
        ("+++\ntitle: Release notes\ndate: 2024-03-01\n+++\nB", 2, "is YAML"),
        ('+++\ntitle = "T\n+++\nB', 2, "close the quote"),
        ("+++\ntitle = 'T'\nslug = 0123\n+++\nB", 3, 'slug = "0123"'),
        ('+++\ntitle = "T"\ndate = 2024-03-01\ntitle = "U"\n+++\nB', 4, "given twice"),
        (
            '{\n  "title": "T",\n  "date": 2024-03-01\n}\nB',
            3,
            "column 15: Expecting ',' delimiter (separate items with commas; strings take",
        ),
        ('{\n  "title": "T",\n  date: "2024-03-01"\n}\nB', 3, "double quotes"),
        ('{\n  "title": "T",\n  "title": "U"\n}\nB', 3, "given twice (lines 2 and 3)"),
        ('{\n  "title": "T"\n  "date": "2024-03-01"\n}\nB', 3, "Expecting ','"),
        # then the usual validation, at the key's line
        ('+++\ntitle = "T"\ndate = 2024-03-01\ntags = [["a"]]\n+++\nB', 4, "'tags'"),
        ('{"title": "T",\n"date": "2024-03-01",\n"draft": "maybe"}\nB', 3, "'draft'"),
        ("+++\ndraft = false\n+++\nB", 1, "missing required front-matter key 'title'"),
        ("[1, 2]\nB", 1, "missing front matter"),
    ],
)
def test_c10_errors_have_the_file_line_kind(site: Site, raw: str, line: int, words: str) -> None:
    issue = error(site, raw)
    assert issue.line == line and words in issue.reason, issue


def test_a_body_that_opens_with_a_shortcode_is_no_json(site: Site) -> None:
    issue = error(site, "{{< note >}}hi{{< /note >}}\n")
    assert issue.reason.startswith("missing front matter") and "TOML" in issue.reason


def test_a_broken_toml_file_does_not_stop_the_site(site: Site) -> None:
    posts = site.content_dir / "posts"
    (posts / "good.md").write_text(TOML, encoding="utf-8")
    (posts / "good-json.md").write_text(JSON.replace("harbour", "harbour-json"), encoding="utf-8")
    (posts / "bad.md").write_text("+++\ntitle = Oops\n+++\nB", encoding="utf-8")
    db = Database(site.database_path)
    report = index_site(site, db)
    assert [(e.path, e.line) for e in report.errors] == [("content/posts/bad.md", 2)]
    rows, _ = store.list_posts(db.read(), lang="en", now=2e9, limit=10)
    assert sorted(r.slug for r in rows) == ["harbour", "harbour-json"]
    issues = [i.format() for i in check_site(site) if i.severity == "error"]
    assert issues == [
        "content/posts/bad.md:2: invalid TOML front matter, column 9: Invalid value "
        '(TOML strings are quoted: title = "…")'
    ]


@pytest.mark.parametrize(
    "raw",
    [
        "+++\ntitle = 'T'\nx = " + "[" * 5000 + "]" * 5000 + "\n+++\nB",
        '{"title": "T", "x": ' + "[" * 50_000 + "]" * 50_000 + "}\nB",
    ],
    ids=["toml", "json"],
)
def test_nesting_too_deep_is_an_error_not_a_crash(site: Site, raw: str) -> None:
    assert "nested too deeply" in error(site, raw).reason


@pytest.mark.parametrize(
    "raw",
    [
        "---\nTitle: No\nDate: 2024-03-01\nTags: [Sea]\nTranslationKey: 1.10\nSubTitle: x\n---\nB",
        '+++\nTitle = "No"\nDATE = 2024-03-01\nTags = ["Sea"]\ntranslationkey = "1.10"\n'
        'SubTitle = "x"\n+++\nB',
        '{"Title": "No", "Date": "2024-03-01", "TAGS": ["Sea"], "TranslationKey": 1.10,\n'
        '"SubTitle": "x"}\nB',
    ],
    ids=["yaml", "toml", "json"],
)
def test_known_keys_are_read_whatever_their_case_as_hugo_does(site: Site, raw: str) -> None:
    post = parse(site, raw)
    assert post.title == "No" and [t.name for t in post.tags] == ["Sea"]
    assert post.translation_key == "k:1.10" and post.date.year == 2024
    assert post.extra == {"SubTitle": "x"}  # other keys as written, for templates


@pytest.mark.parametrize(
    ("raw", "line"),
    [
        ("---\ntitle: A\nTitle: B\ndate: 2024-03-01\n---\nB", 3),
        ('+++\ntitle = "A"\nTitle = "B"\n+++\nB', 3),
        ('{"title": "A",\n"Title": "B"}\nB', 2),
    ],
    ids=["yaml", "toml", "json"],
)
def test_a_key_written_twice_in_two_cases_is_an_error(site: Site, raw: str, line: int) -> None:
    issue = error(site, raw)
    assert issue.line == line and "key 'title' is given twice" in issue.reason
