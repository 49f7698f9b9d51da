"""Issue 32 item 6: translations that say when they fall behind. `translation_of: HASH` written
by `masthead translation mark-current PATH` (and by `masthead new --translation-of`); a notice
in the translation's language with the date and a link to the original; JSON-LD and sitemap
unchanged; the dashboard's Content screen lists the translations behind with a paragraph diff
of what changed in the original since; `masthead check` lists them as info lines. Real site
folders, real SQLite files, the real CLI and app."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from bs4 import BeautifulSoup

from masthead.accounts import service as accounts
from masthead.config import Site
from masthead.content import translations
from masthead.i18n import long_date
from masthead.indexing.check import check_site
from masthead.indexing.indexer import index_site
from masthead.store.db import Database

from support.cli import invoke
from support.guanli import PASSWORD, signed_client
from support.sites import post

ORIGINAL_BODY = "First paragraph.\n\nSecond paragraph.\n\nThird paragraph.\n\nFourth.\n"
EDITED_BODY = (
    "First paragraph.\n\nSecond paragraph, reworded.\n\nThird paragraph.\n\nFourth.\n\n"
    "A new fifth.\n"
)


def soup(response) -> BeautifulSoup:  # type: ignore[no-untyped-def]
    assert response.status_code == 200, (response.status_code, response.text[:300])
    return BeautifulSoup(response.text, "html.parser")


def two_languages(make_site) -> Site:  # type: ignore[no-untyped-def]
    return make_site(
        {
            "posts/harbour.md": post("Harbour", "2026-11-01", body=ORIGINAL_BODY),
            "posts/harbour.zh.md": post("港口", "2026-11-02", body="第一段。\n\n第二段。\n"),
        }
    )


def zh_entry(sitemap: str) -> str:
    """The sitemap's <url> of the translation (with its hreflang alternates)."""
    (entry,) = [
        u for u in sitemap.split("<url>") if "<loc>https://example.com/zh/posts/harbour/" in u
    ]
    return entry


def edit_original(site: Site, body: str = EDITED_BODY, **meta: str) -> None:
    path = site.content_dir / "posts/harbour.md"
    path.write_text(post("Harbour", "2026-11-01", body=body, **meta), encoding="utf-8")


def reindex(site: Site) -> None:
    db = Database(site.database_path)
    index_site(site, db)
    db.close()


def test_the_body_hash_counts_the_body_only():
    same = translations.body_hash("A.\n\nB.\n")
    assert translations.body_hash("\n\nA.  \r\n\r\nB.\n\n\n") == same  # spaces, line ends, ends
    assert translations.body_hash("A.\n\nB, changed.\n") != same
    assert len(same) == translations.HASH_LENGTH


def test_the_diff_is_by_paragraph_with_unchanged_runs_summed_up():
    old = "\n\n".join(f"P{i}." for i in range(1, 9))
    new = old.replace("P2.", "P2, reworded.").replace("P8.", "P8.\n\nP9.")
    changes = translations.paragraph_diff(old, new)
    shown = [(c.kind, c.old, c.new, c.skipped) for c in changes]
    assert shown == [
        ("same", "P1.", "P1.", 0),
        ("changed", "P2.", "P2, reworded.", 0),
        ("same", "P3.", "P3.", 0),
        ("same", "", "", 4),  # P4 to P7
        ("same", "P8.", "P8.", 0),
        ("added", "", "P9.", 0),
    ]


def test_mark_current_writes_the_hash_and_a_changed_original_shows_a_notice(
    make_site, serve, tmp_path
):
    site = two_languages(make_site)
    code, out = invoke("translation", "mark-current", "content/posts/harbour.zh.md", site.root)
    assert code == 0, out
    digest = translations.body_hash(ORIGINAL_BODY)
    assert f"marked current with content/posts/harbour.md ({digest})" in out
    text = (site.content_dir / "posts/harbour.zh.md").read_text(encoding="utf-8")
    assert f'translation_of: "{digest}"\n---\n' in text  # one line added, the rest kept
    assert text.startswith('---\ntitle: "港口"\ndate: 2026-11-02\n')
    assert invoke("translation", "mark-current", "content/posts/harbour.zh.md", site.root)[
        1
    ].endswith(f"already current with content/posts/harbour.md ({digest})\n")

    client = serve(site)
    before = soup(client.get("/zh/posts/harbour/"))
    assert before.select(".translation-behind") == []
    ld_before = before.find("script", type="application/ld+json").string
    sitemap_before = zh_entry(client.get("/sitemap.xml").text)

    edit_original(site, updated="2026-12-01")
    reindex(site)
    after = soup(client.get("/zh/posts/harbour/"))
    (notice,) = after.select(".translation-behind")
    assert notice.get_text(" ", strip=True) == (
        "原文已于 2026年12月1日更新，本译文可能尚未同步。 阅读原文"
    )
    assert notice.a["href"] == "/posts/harbour/" and notice.a["hreflang"] == "en"
    assert after.find("script", type="application/ld+json").string == ld_before
    assert zh_entry(client.get("/sitemap.xml").text) == sitemap_before
    assert soup(client.get("/posts/harbour/")).select(".translation-behind") == []  # original

    # brought up to date: the notice goes
    invoke("translation", "mark-current", "posts/harbour.zh.md", site.root)
    assert soup(client.get("/zh/posts/harbour/")).select(".translation-behind") == []


def test_without_updated_the_notice_gives_the_day_the_change_was_indexed(make_site, serve):
    site = two_languages(make_site)
    invoke("translation", "mark-current", "content/posts/harbour.zh.md", site.root)
    client = serve(site)
    edit_original(site)
    reindex(site)
    db = Database(site.database_path)
    seen = (
        db.read()
        .execute(
            "SELECT seen FROM original_bodies WHERE hash = ?",
            (translations.body_hash(EDITED_BODY),),
        )
        .fetchone()[0]
    )
    db.close()
    time = soup(client.get("/zh/posts/harbour/")).select_one(
        ".translation-behind time, .translation-behind"
    )

    assert long_date(datetime.fromtimestamp(seen, site.tz), "zh_Hans_CN") in time.get_text()


def test_check_lists_translations_behind_as_info_lines(make_site):
    site = two_languages(make_site)
    assert not [i for i in check_site(site) if "behind" in i.reason]  # nothing marked: no claim
    invoke("translation", "mark-current", "content/posts/harbour.zh.md", site.root)
    assert not [i for i in check_site(site) if "behind" in i.reason]
    edit_original(site)
    (issue,) = [i for i in check_site(site) if "behind" in i.reason]
    assert issue.severity == "info" and issue.path == "content/posts/harbour.zh.md"
    assert issue.line == 4  # the translation_of line
    assert "content/posts/harbour.md" in issue.reason
    assert "masthead translation mark-current content/posts/harbour.zh.md" in issue.reason
    code, out = invoke("check", site.root, "--strict")
    assert code == 0, out  # info never fails check
    assert "content/posts/harbour.zh.md:4: info: translation behind its original" in out
    # a front-matter (not body) change of the original is no change to translate
    edit_original(site, body=ORIGINAL_BODY, tags="[new]")
    assert not [i for i in check_site(site) if "behind" in i.reason]


def test_the_dashboard_lists_translations_behind_with_what_changed_in_the_original(make_site):
    site = two_languages(make_site)
    invoke("translation", "mark-current", "content/posts/harbour.zh.md", site.root)
    db = Database(site.database_path)
    accounts.add_user(db, "m1", PASSWORD)
    db.close()
    client = signed_client(site)
    try:
        page = soup(client.get("/guanli/content"))
        assert page.find(id="g-behind").get_text() == "Translations behind their original (0)"
        edit_original(site)
        reindex(site)
        page = soup(client.get("/guanli/content"))
        assert page.find(id="g-behind").get_text() == "Translations behind their original (1)"
        (item,) = page.select(".guanli-behind")
        assert "content/posts/harbour.zh.md" in item.h3.get_text()
        steps = [
            (li["class"][0].split("__")[1], li.get_text(" ", strip=True))
            for li in item.select(".guanli-diff li")
        ]
        assert steps == [
            ("same", "First paragraph."),
            ("changed", "Was Second paragraph. Now Second paragraph, reworded."),
            ("same", "Third paragraph."),
            ("same", "Fourth."),
            ("added", "Added A new fifth."),
        ]
    finally:
        client.__exit__(None, None, None)


def test_the_original_body_a_translation_names_survives_a_full_rebuild(make_site):
    site = two_languages(make_site)
    invoke("translation", "mark-current", "content/posts/harbour.zh.md", site.root)
    edit_original(site)
    db = Database(site.database_path)
    index_site(site, db, full=True)
    bodies = dict(db.read().execute("SELECT hash, body FROM original_bodies").fetchall())
    db.close()
    # the body the translation names and the original's body now; nothing else
    assert bodies == {
        translations.body_hash(ORIGINAL_BODY): translations.normalised(ORIGINAL_BODY),
        translations.body_hash(EDITED_BODY): translations.normalised(EDITED_BODY),
    }


def test_a_new_translation_is_current_with_its_original(make_site):
    site = make_site({"posts/harbour.md": post("Harbour", "2026-11-01", body=ORIGINAL_BODY)})
    code, out = invoke(
        "new", site.root, "Port", "--lang", "zh", "--translation-of", "content/posts/harbour.md"
    )
    assert code == 0, out
    made = Path(out.strip()).read_text(encoding="utf-8")
    assert f'translation_of: "{translations.body_hash(ORIGINAL_BODY)}"' in made


def test_a_bad_translation_of_is_a_check_error_with_its_line(make_site):
    site = make_site({"posts/a.md": post("A", translation_of="not a hash")})
    (issue,) = [i for i in check_site(site) if i.severity == "error"]
    assert issue.line == 4 and "translation_of" in issue.reason
