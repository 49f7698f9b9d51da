"""What saved posts change in an export: the URLs to render again, and no others.

The manifest of a build keeps a `PostState` of every post, page and author page: where it is
(URL, language, date, published or not), what links it to others (translation key, terms,
series) and a digest of everything the database holds of it (every column, its terms and
series). The next build reads the same from the database; the posts whose state differs are
the changed ones, and `plan` names the URLs whose bytes they can change:

- each changed post's page and comment feeds, at its old URL and at its new one;
- the pages of posts that show it: its translations (hreflang, the language switch), its
  neighbours in its language's date order (previous / next links), and the posts sharing a tag
  with it in its language (related posts), before and after the change;
- in its language (old and new): the home listing's pages whose posts moved or hold it, the
  same for each of its terms (old and new), their feeds, the taxonomy indexes, the archive,
  the language's feeds; the all-languages feeds, the site's comment feeds and the sitemap.

A URL named here that the site no longer has (the old URL of a moved post, a term no post has
now, a listing page past the new last one) is removed from the export. Anything `plan` cannot
bound answers None, and the build renders every page: more than `MAX_CHANGED` changed posts, a
changed page or author page (pages are in every page's menu), a post in a series, a language
that is not configured.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from masthead.config import Site
from masthead.content import urls
from masthead.store import export as export_store

MAX_CHANGED = 32  # changed posts above which rendering everything costs about as much
TAXONOMIES = ("tags", "categories", "authors")


@dataclass(frozen=True)
class PostState:
    """One post as the pages depend on it (see the module); `digest` sums up all of it."""

    kind: str
    lang: str
    url: str
    date_ts: float
    visible: bool  # neither a draft nor shadowed (published once `date_ts` has passed)
    translation_key: str
    terms: tuple[tuple[str, str], ...]
    series: bool
    digest: str

    def published(self, now: float) -> bool:
        return self.visible and self.date_ts <= now

    def dump(self) -> list[Any]:
        terms = [list(t) for t in self.terms]
        return [self.kind, self.lang, self.url, self.date_ts, self.visible,
                self.translation_key, terms, self.series, self.digest]  # fmt: skip

    @classmethod
    def load(cls, data: Any) -> PostState:
        kind, lang, url, date_ts, visible, key, terms, series, digest = data
        pairs = tuple((str(t), str(k)) for t, k in terms)
        return cls(str(kind), str(lang), str(url), float(date_ts), bool(visible), str(key),
                   pairs, bool(series), str(digest))  # fmt: skip


States = dict[str, PostState]  # by source path


def read_states(conn: Any) -> States:
    """The `PostState` of every post, page and author page in the database."""
    posts, term_rows, series_rows = export_store.post_states(conn)
    terms: dict[int, list[tuple[Any, ...]]] = {}
    for row in term_rows:
        terms.setdefault(row["post_id"], []).append(tuple(row))
    series: dict[int, list[tuple[Any, ...]]] = {}
    for row in series_rows:
        series.setdefault(row["post_id"], []).append(tuple(row))
    out: States = {}
    for row in posts:
        mine, parts = terms.get(row["id"], []), series.get(row["id"], [])
        digest = hashlib.sha256(repr((tuple(row), mine, parts)).encode()).hexdigest()[:32]
        out[row["source"]] = PostState(
            kind=row["kind"],
            lang=row["lang"],
            url=row["url"],
            date_ts=row["date_ts"],
            visible=not row["draft"] and not row["shadowed"],
            translation_key=row["translation_key"],
            terms=tuple((t[1], t[2]) for t in mine),
            series=bool(parts),
            digest=digest,
        )
    return out


def dump_states(states: States) -> dict[str, list[Any]]:
    return {source: state.dump() for source, state in states.items()}


def load_states(data: Any) -> States | None:
    """The states a manifest recorded; None when it has none (or they cannot be read)."""
    if not isinstance(data, dict) or not data:
        return None
    try:
        return {str(source): PostState.load(state) for source, state in data.items()}
    except (TypeError, ValueError):
        return None


def changed(old: States, new: States) -> list[str]:
    """The source paths of the posts added, removed or changed between `old` and `new`."""
    return sorted(s for s in old.keys() | new.keys() if old.get(s) != new.get(s))


def plan(site: Site, old: States, new: States, now: float) -> set[str] | None:
    """The URL paths (percent-encoded) whose bytes the changes from `old` to `new` may change
    (see the module), whether the site still has them or not; None when that cannot be
    bounded (render everything)."""
    moved = changed(old, new)
    if len(moved) > MAX_CHANGED:
        return None
    versions = [v for s in moved for v in (old.get(s), new.get(s)) if v is not None]
    if any(v.kind != "post" or v.series or v.lang not in site.languages for v in versions):
        return None
    todo: set[str] = {"/sitemap.xml"}
    todo |= {urls.comment_feed_url(None, fmt) for fmt in urls.FEED_FILES}
    if len(site.languages) > 1:
        todo |= {urls.feed_url(urls.ALL_LANGUAGES, fmt) for fmt in urls.FEED_FILES}
    for v in versions:
        todo.add(v.url)
        todo |= {urls.comment_feed_url(v.url, fmt) for fmt in urls.FEED_FILES}
    for states in (old, new):
        todo |= _showing(states, moved, now)
    for code in {v.lang for v in versions}:
        todo |= _listings(site, code, old, new, set(moved), now)
    return todo


def _order(states: States, lang: str, now: float) -> list[str]:
    """The published posts of `lang`, in list pages' order: newest first, then source path."""
    mine = [(s, v) for s, v in states.items() if v.kind == "post" and v.lang == lang]
    ranked = sorted((-v.date_ts, s) for s, v in mine if v.published(now))
    return [s for _ts, s in ranked]


def _showing(states: States, moved: list[str], now: float) -> set[str]:
    """The URLs of the post pages of `states` that show a post of `moved`: its translations,
    its neighbours, the posts sharing a tag with it (in its language)."""
    out: set[str] = set()
    orders: dict[str, list[str]] = {}
    for source in moved:
        post = states.get(source)
        if post is None:
            continue
        order = orders.setdefault(post.lang, _order(states, post.lang, now))
        if source in order:
            at = order.index(source)
            out |= {states[s].url for s in order[max(0, at - 1) : at + 2]}
        tags = {key for tax, key in post.terms if tax == "tags"}
        for other in states.values():
            shares_tag = other.lang == post.lang and any(
                tax == "tags" and key in tags for tax, key in other.terms
            )
            if other.translation_key == post.translation_key or shares_tag:
                out.add(other.url)
    return out


def _listings(
    site: Site, code: str, old: States, new: States, moved: set[str], now: float
) -> set[str]:
    """The list pages and feeds of language `code` whose posts the changes may alter."""
    lang = site.languages[code]
    per = site.settings.posts_per_page
    before, after = _order(old, code, now), _order(new, code, now)
    out = {urls.feed_url(lang.prefix, fmt) for fmt in urls.FEED_FILES}
    out.add(urls.lang_path(lang.prefix, "/archive/"))
    out |= {urls.lang_path(lang.prefix, f"/{taxonomy}/") for taxonomy in TAXONOMIES}
    out |= _pages(lang.root, _touched(before, after, moved, per))
    terms = {
        term
        for states in (old, new)
        for s in moved
        if (v := states.get(s)) is not None and v.lang == code
        for term in v.terms
    }
    for taxonomy, key in terms:
        base = urls.term_url(lang.prefix, taxonomy, key)
        was = [s for s in before if (taxonomy, key) in old[s].terms]
        now_in = [s for s in after if (taxonomy, key) in new[s].terms]
        out |= _pages(base, _touched(was, now_in, moved, per))
        out |= {urls.feed_url(lang.prefix, fmt, taxonomy, key) for fmt in urls.FEED_FILES}
    return out


def _touched(before: list[str], after: list[str], moved: set[str], per: int) -> set[int]:
    """The page numbers (from 1) of a listing whose posts differ between `before` and `after`
    or hold a post of `moved`: every page, before and after, when the count changed."""
    if len(before) != len(after):
        last = max(math.ceil(len(before) / per), math.ceil(len(after) / per), 1)
        return set(range(1, last + 1))
    return {
        i // per + 1
        for i, (a, b) in enumerate(zip(before, after, strict=True))
        if a != b or a in moved
    }


def _pages(base: str, numbers: Iterable[int]) -> set[str]:
    return {base if n == 1 else f"{base}page/{n}/" for n in numbers}
