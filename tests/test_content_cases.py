"""Real users' bug cases C01–C18 (see tests/data/cases/SOURCE.md) against the content engine.

Each test reads its input from tests/data/cases/ byte for byte, and checks the "Right (masthead)"
behaviour of the case: through `parse_post`, and where the case is about what gets published,
through a real index in a real SQLite file. Variants of each input check the whole kind of bug.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import unquote
from zoneinfo import ZoneInfo

import pytest
from bs4 import BeautifulSoup

from masthead.config import Site, load_site
from masthead.content import frontmatter, source
from masthead.content.headings import RESERVED, build_toc, render_toc, slugify, unique_ids
from masthead.content.model import Post
from masthead.content.post import parse_post
from masthead.content.sanitize import clean
from masthead.errors import ContentError, ContentIssue
from masthead.i18n import long_date
from masthead.indexing.indexer import index_site
from masthead.store import posts as store
from masthead.store.db import Database

from support.sites import BILINGUAL_TOML

CASES = Path(__file__).parent / "data" / "cases"
SRC = Path(__file__).parent.parent / "src"
SHANGHAI = ZoneInfo("Asia/Shanghai")

SITE_TOML = BILINGUAL_TOML

MakeSite = Callable[..., Site]


@pytest.fixture
def make_site(tmp_path: Path) -> MakeSite:
    """A site folder in tmp_path: masthead.toml (plus `extra` lines) and content/posts/."""
    count = 0

    def make(extra: str = "") -> Site:
        nonlocal count
        count += 1
        root = tmp_path / f"site{count}"
        (root / "content" / "posts").mkdir(parents=True)
        (root / "masthead.toml").write_text(extra + "\n" + SITE_TOML, encoding="utf-8")
        return load_site(root)

    return make


@pytest.fixture
def site(make_site: MakeSite) -> Site:
    return make_site()


def data(name: str) -> bytes:
    return (CASES / name).read_bytes()


def parse(site: Site, name: str, raw: bytes | None = None) -> Post:
    """Parse case input `name` (or `raw` in its place) as content/posts/<file name>."""
    return parse_post(site, "posts/" + Path(name).name, data(name) if raw is None else raw)


def error(site: Site, name: str, raw: bytes | None = None) -> ContentIssue:
    with pytest.raises(ContentError) as info:
        parse(site, name, raw)
    return info.value.issue


def text_post(body: str, **meta: str) -> bytes:
    head = {"title": "T", "date": "2024-03-01", **meta}
    lines = "".join(f"{k}: {v}\n" for k, v in head.items())
    return f"---\n{lines}---\n\n{body}".encode()


def soup(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "html.parser")


def strings_of(post: Post) -> list[str]:
    """Every string the post carries (fields, tuple items, term names and keys)."""
    out: list[str] = []
    for f in dataclasses.fields(post):
        value = getattr(post, f.name)
        items = value if isinstance(value, tuple) else (value,)
        for item in items:
            if isinstance(item, str):
                out.append(item)
            elif dataclasses.is_dataclass(item):
                out.extend(v for v in dataclasses.astuple(item) if isinstance(v, str))
    return out


def index(site: Site, files: dict[str, bytes], **options: bool) -> tuple[Database, list]:
    """Write `files` into content/posts/ and index the site into its SQLite file."""
    for name, raw in files.items():
        (site.content_dir / "posts" / name).write_bytes(raw)
    db = Database(site.database_path)
    report = index_site(site, db, **options)
    return db, report.errors


def listed(db: Database, lang: str = "en", now: float | None = None, **where: str) -> list[str]:
    now = datetime(2030, 1, 1, tzinfo=SHANGHAI).timestamp() if now is None else now
    rows, total = store.list_posts(db.read(), lang=lang, now=now, limit=50, **where)
    assert total == len(rows)
    return sorted(row.slug for row in rows)


def ids_of(html: str) -> list[str]:
    return [tag["id"] for tag in soup(html).find_all(id=True)]


def toc_targets(post: Post) -> list[tuple[str, str]]:
    """(decoded href target, link text) of every TOC link."""
    out = []
    for a in soup(post.toc_html).find_all("a"):
        assert a["href"].startswith("#")
        out.append((unquote(a["href"][1:]), a.get_text()))
    return out


def toc_tree(toc_html: str) -> list:
    """The TOC as nested [text, [children…]] lists; asserts every nested list sits in an li."""

    def walk(lst) -> list:  # type: ignore[no-untyped-def]
        out = []
        for li in lst.find_all("li", recursive=False):
            nested = li.find_all(["ol", "ul"], recursive=False)
            assert len(nested) <= 1
            out.append([li.a.get_text(), walk(nested[0]) if nested else []])
        assert all(child.name == "li" for child in lst.find_all(recursive=False))
        return out

    page = soup(toc_html)
    for lst in page.find_all(["ol", "ul"]):
        assert lst.parent is page or lst.parent.name == "li", "a list directly inside a list"
    tops = page.find_all(["ol", "ul"], recursive=False)
    assert len(tops) <= 1
    return walk(tops[0]) if tops else []


# --- C01 · UTF-8 BOM before the opening --- --------------------------------------------------


def test_c01_bom_is_stripped_before_front_matter(site: Site) -> None:
    raw = data("C01-bom.md")
    assert raw.startswith(b"\xef\xbb\xbf---\n"), "the input must keep its BOM"
    post = parse(site, "C01-bom.md")
    assert post.title == "Harbour lights"
    assert post.date == datetime(2024, 3, 1, 20, 0, tzinfo=SHANGHAI)
    assert [t.name for t in post.tags] == ["harbour", "night"]
    assert post.slug == "harbour-lights" and post.url == "/posts/harbour-lights/"
    assert post.authors == ("Alice",) and [c.key for c in post.categories] == ["travel"]
    assert post.translation_key == "k:harbour-2024"
    assert ids_of(post.html) == ["at-dusk"]
    assert not [s for s in strings_of(post) if "\ufeff" in s]
    # the BOM changes nothing at all
    assert post == parse(site, "C01-bom.md", raw[3:])


def test_c01_no_bom_in_the_index(site: Site) -> None:
    raw = data("C01-bom.md")
    db, errors = index(site, {"C01-bom.md": raw})
    assert errors == []
    assert listed(db) == ["harbour-lights"]
    conn = db.read()
    for table in ("posts", "post_terms"):
        for row in conn.execute(f"SELECT * FROM {table}"):
            assert not [v for v in row if isinstance(v, str) and "\ufeff" in v], table


@pytest.mark.parametrize(
    "variant",
    [
        pytest.param(lambda raw: raw.replace(b"\n", b"\r\n"), id="bom-and-crlf"),
        pytest.param(lambda raw: raw + b"\xef\xbb\xbf\nMore text.\n", id="bom-mid-file"),
        pytest.param(
            lambda raw: raw.replace(b"Harbour", b"\xef\xbb\xbfHarbour"), id="bom-in-value"
        ),
    ],
)
def test_c01_bom_kind(site: Site, variant: Callable[[bytes], bytes]) -> None:
    post = parse(site, "C01-bom.md", variant(data("C01-bom.md")))
    assert post.title == "Harbour lights" and post.slug == "harbour-lights"
    assert not [s for s in strings_of(post) if "\ufeff" in s]


# --- C02 · CRLF line endings ------------------------------------------------------------------


def test_c02_crlf_output_identical_to_lf(site: Site) -> None:
    raw = data("C02-crlf.md")
    assert raw.count(b"\r\n") == raw.count(b"\n") > 10, "the input must keep its CRLF endings"
    crlf = parse(site, "C02-crlf.md")
    lf = parse(site, "C02-crlf.md", raw.replace(b"\r\n", b"\n"))
    for f in dataclasses.fields(Post):
        if f.name != "source":
            assert getattr(crlf, f.name) == getattr(lf, f.name), f.name
    assert crlf.slug == "harbour-lights-crlf"
    assert crlf.title == "Harbour lights (saved on Windows)"
    assert [(t.name, t.key) for t in crlf.tags] == [("harbour", "harbour"), ("night", "night")]
    assert crlf.draft is False
    assert ids_of(crlf.html) == ["at-dusk"]
    assert not [s for s in strings_of(crlf) if "\r" in s]


@pytest.mark.parametrize("ending", [b"\r", b"\n\r\n"], ids=["old-mac-cr", "mixed"])
def test_c02_line_ending_kind(site: Site, ending: bytes) -> None:
    lf = data("C02-crlf.md").replace(b"\r\n", b"\n")
    if ending == b"\r":
        raw = lf.replace(b"\n", b"\r")
    else:  # every other line ends in CRLF
        lines = lf.split(b"\n")
        ends = [b"\r\n" if i % 2 else b"\n" for i in range(len(lines) - 1)] + [b""]
        raw = b"".join(line + end for line, end in zip(lines, ends, strict=True))
    post = parse(site, "C02-crlf.md", raw)
    assert dataclasses.replace(post, source="") == dataclasses.replace(
        parse(site, "C02-crlf.md", lf), source=""
    )


# --- C03 · dates without a time zone ---------------------------------------------------------

C03 = ["a-date-only.md", "b-naive-datetime.md", "c-with-offset-control.md"]
FROZEN = datetime(2024, 5, 2, 7, 0, tzinfo=SHANGHAI)  # = 2024-05-01 23:00 UTC


def test_c03_naive_dates_read_in_site_zone(site: Site) -> None:
    a, b, c = (parse(site, "C03-date-no-tz/" + name) for name in C03)
    assert a.date == datetime(2024, 5, 2, 0, 0, tzinfo=SHANGHAI)
    assert b.date == c.date == datetime(2024, 5, 2, 6, 30, tzinfo=SHANGHAI)
    for post in (a, b, c):
        assert post.date.utcoffset() == timedelta(hours=8)
        assert post.date <= FROZEN
        assert post.date.date().isoformat() == "2024-05-02"
        assert long_date(post.date, "en") == "May 2, 2024"
        assert long_date(post.date, site.languages["zh"].locale) == "2024年5月2日"


def test_c03_all_published_at_seven_in_the_morning(site: Site) -> None:
    files = {name: data("C03-date-no-tz/" + name) for name in C03}
    db, errors = index(site, files)
    assert errors == []
    assert listed(db, now=FROZEN.timestamp()) == ["c03-a", "c03-b", "c03-c"]
    # at 06:00 local, b and c are still in the future: the clock really decides
    assert listed(db, now=(FROZEN - timedelta(hours=1)).timestamp()) == ["c03-a"]
    rows = db.read().execute("SELECT slug, date FROM posts ORDER BY slug").fetchall()
    assert [r["date"][:10] for r in rows] == ["2024-05-02"] * 3


def test_c03_naive_updated_and_other_forms(site: Site) -> None:
    post = parse_post(
        site, "posts/x.md", text_post("Body.", date="2024-05-02 06:30", updated="2024-05-03")
    )
    assert post.date == datetime(2024, 5, 2, 6, 30, tzinfo=SHANGHAI)
    assert post.updated == datetime(2024, 5, 3, tzinfo=SHANGHAI)
    for written, expected in [
        ("2024-05-01T23:00:00Z", FROZEN),
        ("2024-05-01t23:00:00z", FROZEN),
        ("2024-05-02T07:00:00+0800", FROZEN),
        ("2024-05-02T07:00:00+08", FROZEN),
        ("'2024-05-02T07:00:00+08:00'", FROZEN),
    ]:
        assert parse_post(site, "posts/x.md", text_post("B", date=written)).date == expected


_C03_SCRIPT = """
import json, sys
from masthead.config import load_site
from masthead.content.post import parse_post
from masthead.indexing.indexer import index_site
from masthead.store import posts as store
from masthead.store.db import Database
site = load_site(sys.argv[1], {"database": sys.argv[2]})
out = {}
for path in sorted((site.content_dir / "posts").iterdir()):
    p = parse_post(site, "posts/" + path.name, path.read_bytes())
    out[path.name] = [p.date.isoformat(), p.date.timestamp(), p.html, p.excerpt]
db = Database(site.database_path)
index_site(site, db)
rows, _ = store.list_posts(db.read(), lang="en", now=float(sys.argv[3]), limit=50)
out["listed"] = [[r.slug, r.date, r.date_ts] for r in rows]
print(json.dumps(out, sort_keys=True))
"""


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_c03_same_output_in_any_server_zone(site: Site, tmp_path: Path) -> None:
    for name in C03:
        (site.content_dir / "posts" / name).write_bytes(data("C03-date-no-tz/" + name))
    outputs = {}
    for zone in ("UTC", "America/Los_Angeles"):
        env = {**os.environ, "TZ": zone, "PYTHONPATH": str(SRC)}
        db_file = tmp_path / f"{zone.replace('/', '-')}.db"
        run = subprocess.run(
            [
                sys.executable,
                "-c",
                _C03_SCRIPT,
                str(site.root),
                str(db_file),
                str(FROZEN.timestamp()),
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert run.returncode == 0, run.stderr
        outputs[zone] = run.stdout
    assert outputs["UTC"] == outputs["America/Los_Angeles"]
    result = json.loads(outputs["UTC"])
    assert result["a-date-only.md"][0] == "2024-05-02T00:00:00+08:00"
    assert result["b-naive-datetime.md"][0] == "2024-05-02T06:30:00+08:00"
    assert sorted(r[0] for r in result["listed"]) == ["c03-a", "c03-b", "c03-c"]


# --- C05 · YAML 1.1 implicit typing -----------------------------------------------------------


def test_c05_norway_problem(site: Site) -> None:
    post = parse(site, "C05-implicit-typing/a-norway.md")
    assert post.title == "No"
    assert [t.name for t in post.tags] == ["norway", "no", "yes", "on", "off"]
    assert [t.key for t in post.tags] == ["norway", "no", "yes", "on", "off"]


def test_c05_times_octals_and_versions_stay_text(site: Site) -> None:
    post = parse(site, "C05-implicit-typing/b-numbers.md")
    assert post.title == "10:30"
    assert post.slug == "0123" and post.url == "/posts/0123/"
    assert post.translation_key == "k:1.10"


@pytest.mark.parametrize(
    ("key", "written", "field", "expected"),
    [
        ("author", "No", "authors", ("No",)),
        ("authors", "[yes, 0123]", "authors", ("yes", "0123")),
        ("category", "on", "categories", ("on",)),
        ("excerpt", "off", "excerpt", "off"),
        ("summary", "1.10", "excerpt", "1.10"),
        ("cover", "0123.png", "cover", "/media/posts/0123.png"),
        ("lang", "zh", "lang", "zh"),
        # (relative aliases are from the post's folder, as in Hugo: /posts/x/ → /posts/…)
        ("aliases", "[0123, 1.10]", "aliases", ("/posts/0123/", "/posts/1.10/")),
        ("tags", "[1.10, 010, .inf]", "tags", ("1.10", "010", ".inf")),
        # an empty value, ~ or null is an absent key, never the text "None", "~" or "null"
        ("tags", "~", "tags", ()),
        ("tags", "[a, null]", "tags", ("a",)),
        ("slug", "null", "slug", "x"),
        ("cover", "~", "cover", ""),
        ("updated", "~", "updated", None),
        ("draft", "", "draft", False),
        ("draft", "null", "draft", False),
    ],
)
def test_c05_text_fields_kind(site: Site, key: str, written: str, field: str, expected) -> None:  # type: ignore[no-untyped-def]
    post = parse_post(site, "posts/x.md", text_post("Body text of the post.", **{key: written}))
    value = getattr(post, field)
    if field in ("tags", "categories"):
        value = tuple(t.name for t in value)
    assert value == expected


def test_c05_other_keys_use_yaml_1_2(site: Site) -> None:
    raw = text_post("B", version="0123", norway="no", clock="10:30", ratio="1.10", on="true")
    post = parse_post(site, "posts/x.md", raw)
    assert post.extra == {
        "version": 123,  # YAML 1.1 read 0123 as octal 83
        "norway": "no",
        "clock": "10:30",
        "ratio": 1.1,
        "on": True,
    }
    with pytest.raises(ContentError) as info:
        parse_post(site, "posts/x.md", text_post("B", title="[No]"))
    assert info.value.issue.line == 2 and "title" in info.value.issue.reason


# --- C07 · tags as a string or a list ---------------------------------------------------------

C07 = {
    "a-comma-string.md": [("python", "python"), ("yaml", "yaml")],
    "b-space-in-tag.md": [("machine learning", "machine-learning")],
    "c-fullwidth-separators.md": [
        ("机器学习", "机器学习"),
        ("深度学习", "深度学习"),
        ("自然语言处理", "自然语言处理"),
    ],
    "d-case-duplicates.md": [("Python", "python")],
    "e-single-string.md": [("solo", "solo")],
    "f-empty.md": [],
}


@pytest.mark.parametrize("name", sorted(C07))
def test_c07_tags_from_lists_and_strings(site: Site, name: str) -> None:
    post = parse(site, "C07-tags/" + name)
    assert [(t.name, t.key) for t in post.tags] == C07[name]


def test_c07_one_term_page_per_tag(site: Site) -> None:
    db, errors = index(site, {name: data("C07-tags/" + name) for name in C07})
    assert errors == []
    now = datetime(2030, 1, 1, tzinfo=SHANGHAI).timestamp()
    assert listed(db, taxonomy="tags", key="python") == ["c07-a", "c07-d"]
    counts = {r.key: r.n for r in store.term_counts(db.read(), "tags", "en", now)}
    assert counts == {"python": 2, "yaml": 1, "machine-learning": 1, "solo": 1}
    # Chinese tags: their own term pages under the zh language
    for key in ("机器学习", "深度学习", "自然语言处理"):
        assert listed(db, lang="zh", taxonomy="tags", key=key) == ["c07-c"]
    assert store.term_name(db.read(), "tags", "深度学习", "zh") == "深度学习"


@pytest.mark.parametrize(
    ("key", "written", "expected"),
    [
        ("tags", "'python , yaml,'", ["python", "yaml"]),
        ("tags", "机器学习 ， 深度学习", ["机器学习", "深度学习"]),
        (
            "tags",
            "[Machine Learning, machine  learning, Ｐｙｔｈｏｎ, python]",
            ["Machine Learning", "Ｐｙｔｈｏｎ"],
        ),
        ("tags", '["a, b"]', ["a, b"]),  # a list is taken as it is
        ("tags", "''", []),
        ("tags", "[]", []),
        ("tags", "' , ，'", []),
        ("category", "piano, music", ["piano", "music"]),
        ("categories", "随笔、技术", ["随笔", "技术"]),
    ],
)
def test_c07_term_kind(site: Site, key: str, written: str, expected: list[str]) -> None:
    post = parse_post(site, "posts/x.md", text_post("B", **{key: written}))
    terms = post.categories if key.startswith("categor") else post.tags
    assert [t.name for t in terms] == expected
    assert len({t.key for t in terms}) == len(terms)
    assert all(t.key not in ("", ".", "..") for t in terms)


# --- C09 · delimiter edge cases ---------------------------------------------------------------


def test_c09_a_unclosed_front_matter_is_an_error(site: Site) -> None:
    name = "C09-delimiters/a-missing-closing.md"
    issue = error(site, name)
    assert issue.line == 1 and "never closed" in issue.reason and "line 1" in issue.reason
    db, errors = index(site, {"a-missing-closing.md": data(name)})
    assert [(e.path, e.line) for e in errors] == [("content/posts/a-missing-closing.md", 1)]
    assert db.read().execute("SELECT COUNT(*) FROM posts").fetchone()[0] == 0
    assert (site.content_dir / "posts" / "a-missing-closing.md").read_bytes() == data(name)


@pytest.mark.parametrize("name", ["b-comment-only.md", "c-empty-block.md"])
def test_c09_bc_empty_block_is_empty_metadata(site: Site, name: str) -> None:
    assert frontmatter.split("p", data("C09-delimiters/" + name).decode()).data == {}
    issue = error(site, "C09-delimiters/" + name)
    assert "missing required front-matter key 'title'" in issue.reason


def test_c09_d_closing_delimiter_at_end_of_file(site: Site) -> None:
    raw = data("C09-delimiters/d-closing-at-eof.md")
    assert raw.endswith(b"\n---")
    post = parse(site, "C09-delimiters/d-closing-at-eof.md")
    assert post.title == "Only metadata" and post.slug == "c09-d" and post.authors == ("Alice",)
    assert post.html == "" and post.text == ""


def test_c09_e_thematic_break_is_not_front_matter(site: Site) -> None:
    issue = error(site, "C09-delimiters/e-thematic-break-not-front-matter.md")
    assert issue.line == 1 and issue.reason.startswith("missing front matter")


def test_c09_f_dots_close_front_matter(site: Site) -> None:
    # the documented choice (masthead.content.frontmatter): YAML's '...' ends the block
    post = parse(site, "C09-delimiters/f-dots-closing.md")
    assert post.title == "Closed with three dots" and post.slug == "c09-f"
    assert post.text == "Body text."


@pytest.mark.parametrize(
    ("text", "data_", "body"),
    [
        ("---\n---", {}, ""),
        ("---\ntitle: x\n---", {"title": "x"}, ""),
        ("--- \ntitle: x\n...  \nBody", {"title": "x"}, "Body"),
        ("---\n# only a comment\n---\n\n---\n\nhr above", {}, "\n---\n\nhr above"),
    ],
)
def test_c09_split_kind(text: str, data_: dict, body: str) -> None:
    fm = frontmatter.split("p", text)
    assert fm.data == data_ and fm.body == body


@pytest.mark.parametrize(
    ("raw", "line", "words"),
    [
        (b"", 1, "empty"),
        (b"\n\n", 1, "empty"),
        (b"\n---\ntitle: T\ndate: 2024-03-01\n---\nB", 1, "very first line"),
        (b'+++\ntitle = "T"\n+++\nB', 1, "missing required front-matter key 'date'"),
        (b"---\n- a\n- b\n---\nB", 1, "not a YAML mapping"),
        (b"---\ntitle: T\ndate: 2024-03-01\ntitle: U\n---\nB", 4, "given twice"),
    ],
)
def test_c09_missing_or_odd_front_matter_kind(
    site: Site, raw: bytes, line: int, words: str
) -> None:
    issue = error(site, "x.md", raw)
    assert issue.line == line and words in issue.reason


# --- C10 · one broken file must not break the site --------------------------------------------

C10 = {  # file: (line, words of the hint)
    "a-tab-indent.md": (5, "tabs"),
    "b-colon-in-title.md": (2, "quote values that contain ': '"),
    "c-bracket-title.md": (2, "quote the whole value"),
    "d-at-sign-excerpt.md": (4, "quote it"),
    "e-gbk-encoded.md": (2, "looks like GBK"),
    "f-latin1-encoded.md": (2, "looks like Latin-1"),
}


@pytest.mark.parametrize("name", sorted(C10))
def test_c10_each_broken_file_has_one_clear_error(site: Site, name: str) -> None:
    issue = error(site, "C10-broken-files/" + name)
    line, hint = C10[name]
    assert issue.path == "content/posts/" + name
    assert issue.line == line and hint in issue.reason and "column" in issue.reason


def test_c10_broken_neighbours_do_not_stop_the_site(site: Site) -> None:
    files = {p.name: p.read_bytes() for p in (CASES / "C10-broken-files").iterdir()}
    db, errors = index(site, files)
    assert sorted((e.path, e.line) for e in errors) == sorted(
        ("content/posts/" + name, line) for name, (line, _) in C10.items()
    )
    assert listed(db) == ["c10-good"]
    recorded = store.issues(db.read())
    assert len(recorded) == len(C10)
    for issue in recorded:
        name = issue.path.removeprefix("content/posts/")
        assert issue.severity == "error" and issue.line == C10[name][0]
        assert C10[name][1] in issue.reason


def test_c10_last_good_version_stays_published(site: Site) -> None:
    good = data("C10-broken-files/g-good-neighbour.md")
    db, errors = index(site, {"g-good-neighbour.md": good})
    assert errors == [] and listed(db) == ["c10-good"]
    path = site.content_dir / "posts" / "g-good-neighbour.md"
    bad = good.replace(b"title: A perfectly valid post", b"title: Broken: now invalid")
    path.write_bytes(bad)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))
    for full in (False, True):  # the next pass and a full rebuild alike
        report = index_site(site, db, full=full)
        assert [(e.path, e.line) for e in report.errors] == [
            ("content/posts/g-good-neighbour.md", 2)
        ]
        rows, _ = store.list_posts(db.read(), lang="en", now=FROZEN.timestamp(), limit=50)
        assert [(r.slug, r.title) for r in rows] == [("c10-good", "A perfectly valid post")]
        assert [(i.path, i.line) for i in store.issues(db.read())] == [
            ("content/posts/g-good-neighbour.md", 2)
        ]
    path.write_bytes(good.replace(b"A perfectly valid post", b"Fixed again"))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 4_000_000_000))
    assert index_site(site, db).errors == []
    rows, _ = store.list_posts(db.read(), lang="en", now=FROZEN.timestamp(), limit=50)
    assert [r.title for r in rows] == ["Fixed again"] and store.issues(db.read()) == []


_GOOD_TEXT = "---\ntitle: 文章\ndate: 2024-03-01\n---\n\n这是一篇简体中文的文章，包含常用汉字。\n"


@pytest.mark.parametrize(
    ("raw", "line", "words"),
    [
        (_GOOD_TEXT.encode("utf-16"), 1, "UTF-16"),
        (_GOOD_TEXT.encode("utf-16-le"), 1, "UTF-16 little-endian"),
        (_GOOD_TEXT.encode("utf-32"), 1, "UTF-32"),
        (_GOOD_TEXT.encode("gb18030"), 2, "GBK"),
        (
            _GOOD_TEXT.replace(
                "这是一篇简体中文的文章，包含常用汉字", "這是一篇繁體中文的文章，包含常用漢字"
            ).encode("big5"),
            2,
            "Big5",
        ),
        ("---\ntitle: 日本語のテスト\n---\n".encode("shift_jis"), 2, "Shift_JIS"),
        ("---\ntitle: Crèmerie\n---\n".encode("latin-1"), 2, "Latin-1"),
        ("---\ntitle: “smart” quotes\n---\n".encode("cp1252"), 2, "Windows-1252"),
    ],
)
def test_c10_encoding_kind(raw: bytes, line: int, words: str) -> None:
    with pytest.raises(ContentError) as info:
        source.decode("content/posts/x.md", raw)
    assert info.value.issue.line == line and words in info.value.issue.reason


@pytest.mark.parametrize(
    ("meta", "line"),
    [
        ({"count": "!!int many"}, 4),
        ({"count": "!!int"}, 4),
        ({"ratio": "!!float x"}, 4),
        ({"when": "!!timestamp soon"}, 4),
        ({"flag": "!!bool maybe"}, 4),
        ({"draft": "!!int no"}, 4),
    ],
)
def test_c10_bad_explicit_tags_are_errors_not_crashes(
    site: Site, meta: dict[str, str], line: int
) -> None:
    raw = text_post("Body.", **meta)
    issue = error(site, "x.md", raw)
    assert issue.line == line and "quote the value" in issue.reason
    good = data("C10-broken-files/g-good-neighbour.md")
    db, errors = index(site, {"x.md": raw, "g.md": good})
    assert [e.line for e in errors] == [line] and listed(db) == ["c10-good"]


# --- C12 · duplicate headings -----------------------------------------------------------------


def test_c12_duplicate_headings_get_unique_ids(site: Site) -> None:
    post = parse(site, "C12-duplicate-headings.md")
    ids = ids_of(post.html)
    assert len(ids) == len(set(ids)) == 9
    headings = soup(post.html).find_all(["h2", "h3"])
    by_text: dict[str, list[str]] = {}
    for h in headings:
        by_text.setdefault(h.get_text(), []).append(h["id"])
    assert len(set(by_text["Recipes"])) == 2 and len(set(by_text["Errata"])) == 2
    assert by_text["Errata 1"][0] not in by_text["Errata"]
    assert by_text["1. Setup"] != by_text["2. Setup"]
    assert not set(ids) & RESERVED and not [i for i in ids if i.startswith("mh-")]
    # each TOC link lands on its own heading
    targets = toc_targets(post)
    assert [t for t, _ in targets] == [h["id"] for h in headings]
    page = soup(post.html)
    assert [page.find(id=t).get_text() for t, _ in targets] == [text for _, text in targets]
    # stable across re-renders
    again = parse(site, "C12-duplicate-headings.md")
    assert (again.html, again.toc_html) == (post.html, post.toc_html)


def test_c12_ids_unique_with_raw_html_footnotes_and_page_ids(site: Site) -> None:
    body = data("C12-duplicate-headings.md").decode().split("---\n", 2)[2]
    body = (
        '<a id="recipes"></a>\n\n<span id="mh-toc">x</span> <span id="dup">a</span> '
        '<span id="dup">b</span>\n\n## mh-toc-sheet-title\n\n## Note {#fn:1}\n\n'
        "## Errata {#errata-2}\n\n"
        + body
        + "\n\nA claim.[^1] Another.[^2]\n\n[^1]: One.\n[^2]: Two.\n"
    )
    for extra in ("", "raw_html = true"):
        post = parse_post(make_site_from(site, extra), "posts/x.md", text_post(body))
        ids = ids_of(post.html)
        assert len(ids) == len(set(ids)), ids
        assert "fn:1" in ids and "fnref:1" in ids and "recipes" in ids and "dup" in ids
        heading_ids = [h["id"] for h in soup(post.html).find_all(["h2", "h3"])]
        assert not [i for i in heading_ids if i in RESERVED or i.startswith(("mh-", "fn"))]
        assert [i for i in ids if i.startswith("mh-")] == ["mh-footnotes"]
        page = soup(post.html)
        for target, text in toc_targets(post):
            assert page.find(id=target).get_text() == text


def make_site_from(site: Site, extra: str) -> Site:
    if not extra:
        return site
    root = site.root.parent / (site.root.name + "-raw")
    (root / "content" / "posts").mkdir(parents=True, exist_ok=True)
    (root / "masthead.toml").write_text(extra + "\n" + SITE_TOML, encoding="utf-8")
    return load_site(root)


def test_c12_unique_ids_never_collide_with_real_headings() -> None:
    bases = ["a", "a", "a-2", "a", "a-3", "mh-main", "section", "section"]
    ids = unique_ids(bases, [False] * len(bases), taken={"a-4"})
    assert len(set(ids)) == len(ids)
    assert ids[2] == "a-2" and ids[4] == "a-3"  # real headings keep their own slug
    assert "a-4" not in ids and "mh-main" not in ids


# --- C13 · Chinese headings -------------------------------------------------------------------

C13_IDS = ["安装", "配置", "使用-docker-部署", "常见问题", "安装-2", "2024-年回顾"]


def test_c13_chinese_headings_get_unicode_ids(site: Site) -> None:
    post = parse(site, "C13-cjk-headings.md")
    assert post.lang == "zh" and post.url == "/zh/posts/c13-guide/"
    assert ids_of(post.html) == C13_IDS
    hrefs = [a["href"] for a in soup(post.toc_html).find_all("a")]
    assert all(h.isascii() for h in hrefs), "hrefs are percent-encoded"
    assert [t for t, _ in toc_targets(post)] == C13_IDS
    assert toc_tree(post.toc_html) == [
        ["安装", []],
        ["配置", [["使用 Docker 部署", []]]],
        ["常见问题", []],
        ["安装", []],
        ["2024 年回顾", []],
    ]
    # the same ids in an English post: TOC clicks work in both languages
    en = parse(
        site, "C13-cjk-headings.md", data("C13-cjk-headings.md").replace(b"lang: zh", b"lang: en")
    )
    assert en.url == "/posts/c13-guide/" and ids_of(en.html) == C13_IDS


def test_c13_ids_do_not_depend_on_other_headings(site: Site) -> None:
    raw = data("C13-cjk-headings.md")
    before = parse(site, "C13-cjk-headings.md")
    added = raw.replace(b"---\n\n## ", "---\n\n## 前言\n\n## 新的一节\n\n## ".encode(), 1)
    after = parse(site, "C13-cjk-headings.md", added)
    assert ids_of(after.html) == ["前言", "新的一节", *C13_IDS]
    assert before.html in after.html


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("使用 Docker 部署", "使用-docker-部署"),
        ("日本語のテスト", "日本語のテスト"),
        ("한국어 제목", "한국어-제목"),
        ("हिन्दी भाषा", "हिन्दी-भाषा"),  # vowel signs are kept
        ("ภาษาไทย", "ภาษาไทย"),
        ("Ελληνικά", "ελληνικά"),
        ("「引号」与《书名》！", "引号与书名"),
        ("？！。", "section"),
    ],
)
def test_c13_slugify_kind(heading: str, expected: str) -> None:
    assert slugify(heading) == expected


# --- C16 · skipped heading levels -------------------------------------------------------------


def test_c16_skipped_levels_nest_without_drops(site: Site) -> None:
    post = parse(site, "C16-skipped-levels.md")
    assert toc_tree(post.toc_html) == [
        ["Intro (an h3 before any h2)", []],
        ["Harbour", []],
        ["Pier", [["Tides (h4 directly under an h2)", []]]],
        ["Lighthouse", []],
    ]
    page = soup(post.html)
    assert [t for t, _ in toc_targets(post)] == [h["id"] for h in page.find_all(["h2", "h3", "h4"])]


def test_c16_depth_setting_counts_nesting_not_levels(make_site: MakeSite) -> None:
    raw = data("C16-skipped-levels.md")
    unskipped = raw.replace(b"#### Tides", b"### Tides")
    for levels, expected in [
        ("[2, 3]", ["Intro (an h3 before any h2)", "Harbour", "Pier", "Tides", "Lighthouse"]),
        ("[2, 2]", ["Intro (an h3 before any h2)", "Harbour", "Pier", "Lighthouse"]),
    ]:
        site = make_site(f"toc_levels = {levels}")
        skipped = toc_tree(parse(site, "C16-skipped-levels.md").toc_html)
        plain = toc_tree(parse(site, "C16-skipped-levels.md", unskipped).toc_html)
        assert flatten(skipped) == flatten(plain) == expected
        assert len(skipped) == len(plain) == 4


def flatten(tree: list) -> list[str]:
    """Entry texts in reading order, without the "(h4 directly under an h2)" notes."""
    out: list[str] = []
    for text, children in tree:
        out += [text.removesuffix(" (h4 directly under an h2)"), *flatten(children)]
    return out


def test_c16_toc_shapes() -> None:
    heads = [
        (4, "a", "A"),
        (2, "b", "B"),
        (5, "c", "C"),
        (3, "d", "D"),
        (2, "e", "E"),
        (1, "f", "F"),
    ]
    tree = toc_tree(render_toc(build_toc(heads, 2, 4)))
    assert tree == [["A", []], ["B", [["C", []], ["D", []]]], ["E", []]]
    assert toc_tree(render_toc(build_toc(heads, 2, 6))) == tree
    assert render_toc(build_toc([], 2, 3)) == ""


# --- C18 · raw HTML in a post -----------------------------------------------------------------


def assert_safe(html: str) -> None:
    page = soup(html)
    assert not page.find_all(["script", "iframe", "object", "embed", "form", "style", "svg"])
    for tag in page.find_all(True):
        for attr, value in tag.attrs.items():
            assert not attr.lower().startswith("on"), (tag.name, attr)
            if attr in ("href", "src", "action", "formaction", "cite"):
                assert not value.strip().lower().startswith(("javascript:", "data:", "vbscript:"))
    for box in page.find_all("input"):
        assert box.get("type") == "checkbox" and box.has_attr("disabled")


def test_c18_raw_html_is_sanitized(site: Site) -> None:
    post = parse(site, "C18-raw-html.md")
    page = soup(post.html)
    assert [k.get_text() for k in page.find_all("kbd")] == ["Ctrl", "S"]
    assert page.find("mark").get_text() == "highlight"
    assert page.find("details").find("summary").get_text() == "More"
    assert_safe(post.html)
    assert "changed by the post body" not in post.html and "alert(" not in post.html
    assert page.find("a", href="https://example.com/") is not None
    for plain in (post.text, post.excerpt):
        assert "<" not in plain and "alert" not in plain and "document.title" not in plain
    assert post.excerpt == "Press Ctrl + S, then look at the highlight."
    assert "Hidden text." in post.text and "a scripted link" in post.text


def test_c18_index_holds_only_sanitized_html(site: Site) -> None:
    db, errors = index(site, {"C18-raw-html.md": data("C18-raw-html.md")})
    assert errors == []
    row = db.read().execute("SELECT html, body_text, excerpt FROM posts").fetchone()
    assert_safe(row["html"])
    assert "<" not in row["body_text"] + row["excerpt"]


def test_c18_raw_html_setting_trusts_authors(make_site: MakeSite) -> None:
    site = make_site("raw_html = true")
    post = parse(site, "C18-raw-html.md")
    assert "<script>document.title" in post.html and "onerror=" in post.html
    assert "<iframe" in post.html and "javascript:alert" in post.html
    assert "document.title" not in post.text


@pytest.mark.parametrize(
    "attack",
    [
        '<a href="&#106;avascript:alert(1)">x</a>',
        '<a href=" JaVaScRiPt:alert(1)">x</a>',
        '<a href="vbscript:msgbox(1)">x</a>',
        '<img src="data:image/svg+xml;base64,PHN2Zz4=">',
        "![pixel](data:image/png;base64,AAAA)",
        "<svg onload=alert(1)><circle/></svg>",
        '<details open ontoggle="alert(1)"><summary>S</summary>D</details>',
        '<object data="x.swf"></object><embed src="x.swf">',
        '<form action="https://evil.example/"><input type="password" name="pw"></form>',
        '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
        "<style>body { display: none }</style>",
        '<div style="background:url(javascript:alert(1))">s</div>',
        '<a href="https://example.com/" onmouseover="alert(1)">x</a>',
        "<p><img src=x onerror=alert(1)//></p>",
    ],
)
def test_c18_attack_kind(site: Site, attack: str) -> None:
    post = parse_post(site, "posts/x.md", text_post(f"Before.\n\n{attack}\n\nAfter."))
    assert_safe(post.html)
    assert "alert(" not in post.html.replace("[pixel]", "")
    assert "<" not in post.text and "<" not in post.excerpt
    assert_safe(clean(attack))
