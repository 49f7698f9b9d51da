"""Issue 13 (READ2): posts and pages put themselves in a menu from front matter, as in Hugo
(`menu: main`, `menu: {main: {name, weight}}`), beside the `menu` setting. Real site folders,
real SQLite files, the real app over HTTP, the real `check`."""

from __future__ import annotations

import re
import sqlite3

import pytest
from bs4 import BeautifulSoup

from masthead.indexing.check import check_site
from masthead.store.db import Database

from support.sites import BILINGUAL_TOML, post

SETTING = (
    BILINGUAL_TOML
    + """
[[menu.en]]
title = "Projects"
url = "https://example.org/projects/"
weight = 5

[[menu.en]]
title = "Colophon"
url = "/colophon/"
weight = 30
"""
)

FILES = {
    "posts/a.md": post("A post"),
    # the forms Hugo accepts: a name, a list of names, a map with name/title and weight
    "pages/about.md": post("About this site", menu="main", linkTitle="About"),
    "pages/contact.md": post("Contact", menu="[main]"),
    "pages/team.md": post("The team", menu='{main: {name: "Team", weight: 10}}'),
    "pages/support.md": post("Support", menus='{main: {title: "Help", weight: -1}}'),
    # the setting lists this one already: it is not repeated, the setting's title wins
    "pages/colophon.md": post("How this site is made", menu="main"),
    "pages/draft.md": post("Draft page", menu="main", draft="true"),
    "pages/later.md": post("Later page", date="2999-01-01", menu="main"),
    "pages/about.zh.md": post("关于", menu="{main: {weight: 1}}"),
}


def header_links(page: BeautifulSoup) -> list[tuple[str, str]]:
    nav = page.find("nav", class_="site-nav")
    return [(a.get_text(strip=True), a["href"]) for a in nav.find_all("a")][3:]  # after archive…


def footer_links(page: BeautifulSoup) -> list[tuple[str, str]]:
    links = page.find("ul", class_="site-footer__links").find_all("a")
    return [(a.get_text(strip=True), a["href"]) for a in links][2:]  # after home, archive


def page(client, path: str) -> BeautifulSoup:  # type: ignore[no-untyped-def]
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code, response.text[:300])
    return BeautifulSoup(response.text, "html.parser")


def test_front_matter_menu_entries_join_the_setting_in_header_and_footer(make_site, serve):
    client = serve(make_site(FILES, SETTING))
    expected = [
        ("Help", "/support/"),  # weight -1
        ("About", "/about/"),  # weight 0, Hugo's linkTitle before the title
        ("Contact", "/contact/"),  # weight 0, then the older post first
        ("Projects", "https://example.org/projects/"),  # weight 5 (the setting)
        ("Team", "/team/"),  # weight 10
        ("Colophon", "/colophon/"),  # the setting's entry, not the page's own
    ]
    for path in ("/", "/posts/a/", "/archive/", "/tags/", "/team/"):
        doc = page(client, path)
        assert header_links(doc) == expected, path
        assert footer_links(doc) == expected, path  # the About page is not listed twice
    team = page(client, "/team/").find("nav", class_="site-nav").find("a", href="/team/")
    assert team["aria-current"] == "page"
    zh = page(client, "/zh/")
    assert header_links(zh) == [("关于", "/zh/about/")]  # each post in its own language
    assert footer_links(zh) == [("关于", "/zh/about/")]


BAD = [
    ("menu: 5", r"write main, \[main\]"),
    ("menu: true", r"write main, \[main\]"),
    ("menu: [[main]]", r"a menu name \(main\) or a list"),
    ("menu: {main: [1, 2]}", r"main: write a map"),
    ("menu: {main: {weight: ten}}", r"weight: 'ten' is not a whole number"),
    ("menu: {main: {weight: 1.5}}", r"weight: 1\.5 is not a whole number"),
    ("menu: {main: {name: {a: 1}}}", r"name: must be a non-empty string"),
    ('menu: {main: {name: ""}}', r"name: must be a non-empty string"),
    ("menu: footer", r"unknown menu 'footer'"),
]


@pytest.mark.parametrize(("line", "reason"), BAD)
def test_a_bad_front_matter_menu_is_a_check_warning_and_the_post_still_publishes(
    make_site, serve, line, reason
):
    text = f"---\ntitle: Odd page\ndate: 2024-03-01\n{line}\n---\n\nBody.\n"
    site = make_site({"pages/odd.md": text, "posts/a.md": post("A post")})
    [issue] = [i for i in check_site(site) if i.path == "content/pages/odd.md"]
    assert (issue.severity, issue.line) == ("warning", 4)
    assert re.search(reason, issue.reason), issue.reason
    client = serve(site)
    doc = page(client, "/odd/")  # indexed and served
    assert doc.find("h1").get_text(strip=True) == "Odd page"
    assert ("Odd page", "/odd/") not in header_links(page(client, "/"))  # left out of the menu
    # the index records the same warning (the dashboard's content issues), once
    rows = (
        sqlite3.connect(site.database_path)
        .execute(
            "SELECT line, severity, reason FROM content_issues WHERE path = 'content/pages/odd.md'"
        )
        .fetchall()
    )
    assert rows == [(4, "warning", issue.reason)]


def test_unsupported_keys_are_warned_about_and_the_entry_still_shows(make_site, serve):
    text = (
        "---\ntitle: Nested\ndate: 2024-03-01\nmenu:\n  main:\n    parent: about\n"
        "    weight: 3\n    colour: red\n  footer: {}\n---\n\nBody.\n"
    )
    site = make_site({"pages/nested.md": text})
    issues = [i for i in check_site(site) if i.path == "content/pages/nested.md"]
    reasons = sorted(i.reason for i in issues)
    assert {i.line for i in issues} == {4} and len(reasons) == 3, reasons
    assert any("parent: menus are flat" in r for r in reasons)
    assert any("unknown key 'colour'" in r for r in reasons)
    assert any("unknown menu 'footer'" in r for r in reasons)
    assert header_links(page(serve(site), "/")) == [("Nested", "/nested/")]


def test_a_site_without_front_matter_menus_has_no_problems(make_site):
    site = make_site({"posts/a.md": post("A post", linkTitle="A")})
    assert [i for i in check_site(site) if i.severity != "info"] == []


def test_the_menu_query_reads_only_the_rows_that_name_a_menu(make_site, serve):
    site = make_site(FILES, SETTING)
    serve(site)  # indexes the site
    conn = Database(site.database_path).read()
    from masthead.store.posts import MENU_FILTER  # here: the other tests run on older code

    plan = conn.execute(
        f"EXPLAIN QUERY PLAN SELECT url FROM posts WHERE {MENU_FILTER} AND lang = 'en' "
        "AND kind IN ('post', 'page')"
    ).fetchall()
    assert "USING INDEX posts_menu" in " ".join(str(row[-1]) for row in plan)
