"""`masthead check` on the site's `static/` folder, which is served at the root as Hugo serves it
(`static/images/x.png` at `/images/x.png`) and under `/static/` over the theme's files.

Errors: a file whose root URL a page, an alias, a feed or another file masthead makes already
answers (the page wins, so the file is never seen there), or that lies under a path masthead
serves itself (`/static/`, `/media/`, `/tags/`, …). Info: a file that replaces one of the
theme's own under `/static/` (the documented way to override it). Warnings: a post that links
to a file of the root or of `/static/` that is in neither folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

from masthead.config import Site
from masthead.content import sanitize, urls
from masthead.content.discover import is_ignored
from masthead.content.model import Post
from masthead.errors import ContentIssue

PACKAGE_STATIC = Path(__file__).parents[1] / "web" / "static"

# files masthead makes at the root of every site (serve) or of a build (masthead build)
GENERATED = {
    "robots.txt": "masthead's robots.txt (robots_disallow and robots_extra add to it)",
    "sitemap.xml": "masthead's sitemap",
    "404.html": "the not-found page masthead build writes",
    "_redirects": "the redirects file masthead build writes (aliases; Netlify, Cloudflare Pages)",
    "_headers": "the headers file masthead build writes (Netlify, Cloudflare Pages)",
}
_SOURCES = (".md", ".markdown", ".toml")  # never served (web.http.media.refused)


def static_files(folder: Path) -> Iterator[str]:
    """POSIX paths relative to `folder` of the files it serves, sorted (hidden names and editor
    backups left out, as the server leaves them)."""
    if not folder.is_dir():
        return
    found = []
    for top, dirs, names in os.walk(folder, followlinks=True):
        dirs[:] = [d for d in dirs if not is_ignored(d)]
        rel_top = Path(top).relative_to(folder).as_posix()
        for name in names:
            if not is_ignored(name) and not name.lower().endswith(_SOURCES):
                found.append(name if rel_top == "." else f"{rel_top}/{name}")
    yield from sorted(found)


def _taken(site: Site, posts: list[Post]) -> dict[str, str]:
    """URL path → what masthead answers there: pages, aliases, feeds, generated files."""
    taken: dict[str, str] = {}
    for name, what in GENERATED.items():
        taken["/" + name] = what
    for lang in site.languages.values():
        taken[urls.lang_path(lang.prefix, "/")] = f"the home page of {lang.code}"
        for fmt in urls.FEED_FILES:
            taken[urls.feed_url(lang.prefix, fmt)] = f"the {fmt} feed of {lang.code}"
    for post in posts:
        taken.setdefault(post.url, f"the permalink of {post.source}")
        for alias in post.aliases:
            taken.setdefault(alias, f"an alias of {post.source}")
        for fmt in urls.THREAD_FEED_FILES:
            taken.setdefault(urls.comment_feed_url(post.url, fmt), f"a feed of {post.source}")
    return taken


def check_static(site: Site, posts: list[Post]) -> list[ContentIssue]:
    """The problems of the site's `static/` folder and of the links to its files."""
    folder = site.root / site.settings.static_dir
    where = site.settings.static_dir
    taken = _taken(site, posts)
    prefixes = {lang.prefix for lang in site.languages.values() if lang.prefix}
    out: list[ContentIssue] = []
    files = list(static_files(folder))
    for rel in files:
        url = urls.static_url(rel)
        first = rel.split("/", 1)[0]
        if url in taken:
            reason = f"its URL {url} is {taken[url]}, which wins: the file is never served there"
        elif first.startswith("sitemap-") and first.endswith(".xml"):
            reason = f"its URL {url} is a part of masthead's sitemap"
        elif "/" in rel and first in urls.RESERVED:
            reason = (
                f"its URL {url} is under /{first}/, which masthead serves itself: the file is "
                "never served there"
            )
        elif "/" in rel and first in prefixes and rel.split("/", 1)[1] in ("feed.xml", "atom.xml"):
            reason = f"its URL {url} is a feed of masthead's"
        else:
            if (PACKAGE_STATIC / rel).is_file():
                out.append(
                    ContentIssue(
                        f"{where}/{rel}",
                        0,
                        f"replaces masthead's own /static/{rel} (the theme's file) under "
                        "/static/, as an override does",
                        "info",
                    )
                )
            continue
        out.append(ContentIssue(f"{where}/{rel}", 0, f"{reason}; rename or move it"))
    out.extend(_missing_links(site, posts, set(files), taken))
    return out


def _missing_links(
    site: Site, posts: list[Post], files: set[str], taken: dict[str, str]
) -> list[ContentIssue]:
    """Warnings for links (and covers) to a file at the root or under `/static/` that neither
    the site's `static/` nor the theme has."""
    out: list[ContentIssue] = []
    where = site.settings.static_dir
    for post in posts:
        links = [*sanitize.urls_in(post.html), post.cover]
        for url in dict.fromkeys(links):
            path = unquote(url.partition("#")[0].partition("?")[0])
            if not path.startswith("/") or path.startswith("//") or path.endswith("/"):
                continue
            name = path.rsplit("/", 1)[-1]
            if "." not in name.strip(".") or path in taken or path + "/" in taken:
                continue  # a page's path without its slash (redirected), a feed
            if path.startswith("/static/"):
                rel = path[len("/static/") :]
                if rel in files or (PACKAGE_STATIC / rel).is_file():
                    continue
            elif path[1:] in files or path.split("/", 2)[1] in urls.RESERVED:
                continue  # served, or checked elsewhere (/media/ files beside posts)
            else:
                rel = path[1:]
            out.append(
                ContentIssue(
                    post.source,
                    line_mentioning(site, post.source, name),
                    f"link to {path}: no such file in {where}/ (looked for {where}/{rel})",
                    "warning",
                )
            )
    return out


def line_mentioning(site: Site, source: str, needle: str) -> int:
    """1-based line of the first mention of `needle` in a content file (0 if none)."""
    try:
        text = (site.root / source).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 0
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    return 0
