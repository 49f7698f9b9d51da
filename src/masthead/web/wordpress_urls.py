"""Where an old WordPress archive or feed URL lives on a site imported from WordPress (the
`[wordpress]` settings, `archives = true`): asked by the 404 handler, so a page of the site
at that URL always wins.

- `/category/SLUG/` (and nested `/category/parent/child/`: the last one), `/tag/SLUG/`,
  `/author/NAME/`: the term page (`/categories/KEY/`, `/tags/KEY/`, `/authors/KEY/`) when the
  term has posts in that language; the slug is the term's key, or the name `slugs` gives it;
- `/YYYY/`, `/YYYY/MM/`, `/YYYY/MM/DD/`: the archive (one page of every post, by year);
- `…/page/N/`: page N of the term's list (the archive for a date);
- `/feed/` (also `/feed/rss2/`, `/feed/atom/`), `/category/x/feed/`, `/tag/x/feed/`,
  `/comments/feed/`: the home page's, the term's or the comments' feed.

Old URLs under the blog's `root` (`/blog/category/x/`) and under a language's prefix
(`/zh/category/x/`, Polylang's) are read the same way."""

from __future__ import annotations

import re
from urllib.parse import unquote

from masthead.config import Language
from masthead.content import urls
from masthead.content.meta import term_key
from masthead.store import posts as store
from masthead.web.cache.state import SiteState

_YEAR = re.compile(r"^(?:19|20|21)\d\d$")
_TWO = re.compile(r"^\d\d$")


def target(path: str, state: SiteState) -> str | None:
    """The URL path the old WordPress URL `path` (decoded) answers with a 301, or None."""
    wp = state.site.settings.wordpress
    if not wp.archives:
        return None
    root = "/" + wp.root.strip("/")
    if root != "/":
        if not (path + "/").startswith(root + "/"):
            return None
        path = path[len(root) :]
    parts = [p for p in path.split("/") if p]
    lang = state.site.default_language
    for candidate in state.site.languages.values():
        if candidate.prefix and parts and parts[0] == candidate.prefix:
            lang, parts = candidate, parts[1:]
    feed = None
    if parts and parts[-1] in ("rss", "rss2", "rdf", "atom") and parts[-2:-1] == ["feed"]:
        feed, parts = ("atom" if parts[-1] == "atom" else "rss"), parts[:-2]
    elif parts and parts[-1] == "feed":
        feed, parts = "rss", parts[:-1]
    page = 1
    if len(parts) >= 2 and parts[-2] == "page" and parts[-1].isdigit():
        page, parts = int(parts[-1]), parts[:-2]
        if page < 1 or page > 999_999_999:
            return None
    return _resolve(parts, lang, feed, page, state)


def _resolve(
    parts: list[str], lang: Language, feed: str | None, page: int, state: SiteState
) -> str | None:
    wp = state.site.settings.wordpress
    if not parts:  # `/feed/`; `/page/N/` is masthead's own
        return urls.feed_url(lang.prefix, feed) if feed else None
    if parts == ["comments"] and feed:
        return urls.comment_feed_url(None, feed)
    bases = {wp.category_base.strip("/"): "categories", wp.tag_base.strip("/"): "tags"}
    bases["author"] = "authors"
    taxonomy = bases.get(parts[0])
    if taxonomy and len(parts) >= 2:
        key = _term(state, taxonomy, unquote(parts[-1]), lang)
        if key is None:
            return None
        if feed:
            return urls.feed_url(lang.prefix, feed, taxonomy, key)
        url = urls.term_url(lang.prefix, taxonomy, key)
        return f"{url}page/{page}/" if page > 1 else url
    if _is_date(parts) and not feed:
        return urls.lang_path(lang.prefix, "/archive/")
    return None


def _is_date(parts: list[str]) -> bool:
    return (
        1 <= len(parts) <= 3
        and _YEAR.match(parts[0]) is not None
        and all(_TWO.match(p) for p in parts[1:])
    )


def _term(state: SiteState, taxonomy: str, slug: str, lang: Language) -> str | None:
    """The key of the term of `taxonomy` the WordPress slug names, if it has posts in `lang`."""
    named = state.site.settings.wordpress.slugs.get(taxonomy, {}).get(slug)
    conn = state.db.read()
    for key in dict.fromkeys(k for k in (term_key(named or ""), term_key(slug)) if k):
        if store.term_name(conn, taxonomy, key, lang.code) is not None:
            return key
    return None
