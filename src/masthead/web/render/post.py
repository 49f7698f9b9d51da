"""The page of one post or page: its body, comments, links to its neighbours and related
posts, and its JSON-LD (`BlogPosting` with its comments, or `WebPage`).
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from typing import Any

from markupsafe import Markup

from masthead.config import Language
from masthead.content import authors as people
from masthead.content import cards, urls
from masthead.content.text import html_to_text
from masthead.errors import NotFound
from masthead.i18n import gettext
from masthead.seo import jsonld
from masthead.store import comments as comment_store
from masthead.store import posts as store
from masthead.store.rows import PostLink, PostRow, RelatedPost
from masthead.web.render import behind, discussion
from masthead.web.render.base import post_authors
from masthead.web.render.related import RelatedIndex
from masthead.web.render.series import SeriesPages

RELATED_POSTS = 3  # related posts under a post, at most
JSONLD_COMMENTS = 100  # Comment items in a post's JSON-LD at most (the oldest; the count is all)


class PostPage(SeriesPages):
    """A post or page (`post`)."""

    def post(
        self, lang: Language, url: str, comment_page: int = 1, preview: bool = False
    ) -> tuple[str, int]:
        """A post or page at `url`; a post shows page `comment_page` of its comment thread (the
        nearest page it has when it has not that one).
        With `preview` (a signed-in editor), a draft or a post dated in the future too,
        marked and noindex (the caller never caches it)."""
        conn = self.state.db.read()
        now = self.state.now()
        row = store.post_by_url(conn, url, now, drafts=self.state.dev)
        previewed = row is None and preview
        if previewed:
            row = store.preview_by_url(conn, url)
        if row is None:
            raise NotFound("no such post")
        self.state.reads_thread(row.translation_key)  # cached until its thread changes
        comments = discussion.block(
            conn, row, self.site, lang, now, comment_page, frozen=self.state.self_contained
        )
        terms = store.terms_of(conn, [row.id])[row.id]
        others = store.translations(conn, row, now, drafts=self.state.dev)
        versions = {row.lang: row.url, **{o.lang: o.url for o in others}}
        post = {
            **self.card(row, terms, lang),
            "kind": row.kind,
            # the nh3 allowlist is the last step of body_html (raw_html trusts its authors)
            "html": Markup(self.body_html(row.html, row.lang)),  # nosec B704
            # the TOC is built from escaped heading text (content.headings.render_toc)
            "toc_html": Markup(row.toc_html) if row.show_toc else "",  # nosec B704
            "authors": [
                {"name": a.name, "url": people.bio_url(lang.prefix, a.key)}
                for a in post_authors(row.authors)
            ],
            "cover": row.cover if self.cover_url(row.cover) else "",
            "updated": self.date(row.updated, lang) if row.updated else None,
            "translations": [
                {
                    "name": self.site.languages[o.lang].name,
                    "hreflang": self.site.languages[o.lang].hreflang,
                    "url": o.url,
                    "title": o.title,
                }
                for o in others
                if o.lang in self.site.languages
            ],
        }
        page_url = self.absolute(row.url)
        canonical = row.canonical or page_url
        image = self.cover_url(row.cover)
        published = datetime.fromisoformat(row.date)
        modified = datetime.fromisoformat(row.updated) if row.updated else published
        tags = [n for _k, n in terms["tags"]]
        sections = [n for _k, n in terms["categories"]]
        boxes = self.series_boxes(conn, row, lang, now)
        original = behind.original_if_behind(conn, row, self.site, now)
        notice = None
        if original is not None and original.lang in self.site.languages:
            when = behind.changed_at(conn, original, self.site)
            notice = {
                "date": self.date(when.isoformat(), lang),
                "url": original.url,
                "hreflang": self.site.languages[original.lang].hreflang,
            }
        if row.kind == "post":
            settings = self.site.settings
            comment_count, comment_items = self.comment_nodes(conn, row, page_url)
            node = jsonld.blog_posting(
                url=page_url,
                canonical=canonical,
                headline=row.title,
                description=row.excerpt,
                published=published,
                modified=modified,
                authors=self.author_nodes(row.authors, lang),
                image=image,
                language=lang.hreflang,
                publisher=jsonld.organization(settings.title, self.absolute("/")),
                keywords=tags,
                sections=sections,
                word_count=row.word_count,
                comment_count=comment_count,
                comments=comment_items,
                part_of=self.series_nodes(boxes, lang),
            )
            trail = []
            if sections:  # the first category, as the card links it
                key, name = terms["categories"][0]
                trail = [(name, urls.term_url(lang.prefix, "categories", key))]
            og: dict[str, Any] = {
                "kind": "article",
                "image": image,
                **self.share_card(row, image),
                "published": published,
                "modified": modified,
                "tags": tags,
                "section": sections[0] if sections else "",
            }
        else:
            node = jsonld.web_page(
                url=page_url, name=row.title, description=row.excerpt, language=lang.hreflang
            )
            trail, og = [], {"image": image}
        return self.page(
            "post.html",
            lang,
            path=row.url,
            title=row.title,
            versions=versions,
            hreflang=self.post_hreflang(conn, row),
            post=post,
            description=row.excerpt,
            canonical=canonical,
            noindex=bool(row.noindex or row.draft or previewed),
            og=og,
            structured=[node, self.crumbs(lang, *trail, (row.title, row.url))],
            preview=(
                {"scheduled": self.date(row.date, lang)}
                if previewed and row.date_ts > now
                else None
            ),
            feeds=self.feed_links(lang) + self.comment_feed_links(row, lang),
            comments=comments,
            series=boxes,
            behind=notice,
            **self.post_links(conn, row, lang, now),
        )

    def share_card(self, row: PostRow, cover: str) -> dict[str, Any]:
        """The Open Graph image fields of a post's share card (content/cards.py) when it has no
        cover: `image` (absolute), its size and `image_alt`; {} when it has a cover or can
        have no card. Made now if the index has not made it (its file was deleted)."""
        if cover:
            return {}
        text = cards.card_text(
            self.site,
            row.lang,
            row.title,
            datetime.fromisoformat(row.date),
            json.loads(row.authors),
            row.reading_minutes,
        )
        card = self.cards.card(text)
        if card is None:
            return {}
        return {
            "image": self.absolute(card.url),
            "image_width": card.width,
            "image_height": card.height,
            "image_alt": card.alt,
        }

    def post_links(
        self, conn: sqlite3.Connection, row: PostRow, lang: Language, now: float
    ) -> dict[str, Any]:
        """A post's `neighbours` (`{"previous", "next"}`: the older and newer post of its
        language by date, each `{"title", "url"}` or None) and `related` (up to `RELATED_POSTS`
        posts of its language sharing the most tags, newest first on ties); none for pages.
        Both change only with the index, so the page's cache (per generation) stays right."""
        if row.kind != "post":
            return {"neighbours": None, "related": []}
        drafts = self.state.dev
        older, newer = store.neighbours(conn, row, now, drafts=drafts)
        related = self.related(conn, row, now)

        def link(r: PostLink | RelatedPost | None) -> dict[str, Any] | None:
            if r is None:
                return None
            return {"title": r.title, "url": r.url, "date": self.date(r.date, lang)}

        return {
            "neighbours": {"previous": link(older), "next": link(newer)},
            "related": [link(r) for r in related],
        }

    def related(self, conn: sqlite3.Connection, row: PostRow, now: float) -> list[RelatedPost]:
        """`store.posts.related` of `row`; in a build (`state.bulk`), from every post's tags
        read once per version (render/related.py), in the same order."""
        if self.state.bulk and not self.state.dev:
            index = self.state.memo(
                ("related",), lambda: RelatedIndex(store.tagged_posts(conn, now))
            )
            if row.id in index:
                return index.related(row.id, RELATED_POSTS)
        return store.related(conn, row, now, RELATED_POSTS, drafts=self.state.dev)

    def comment_nodes(
        self, conn: sqlite3.Connection, row: PostRow, page_url: str
    ) -> tuple[int | None, list[dict[str, Any]]]:
        """A post's `commentCount` (None when its comments are off) and JSON-LD `Comment` items
        (approved ones only: a removed comment's placeholder has no author and no text, C39).
        The page must be one that `reads_thread` its thread."""
        if not row.comments:
            return None, []
        thread = comment_store.public_thread(conn, row.translation_key)
        # readers' comments only: a pingback or trackback is another site's link, no Comment
        # a person wrote (schema.org has no type for it), so it is neither listed nor counted
        shown = [c for c in thread if not c.removed and not discussion.is_ping(c.kind)]
        listed = shown[:JSONLD_COMMENTS]
        ids = {c.id for c in listed}  # a reply to a removed comment names no parent
        written = self.site.languages.get(row.lang, self.site.default_language)
        nameless = gettext(written.locale, "anonymous")  # imported comments may have no name
        items = [
            jsonld.comment(
                url=f"{page_url}#c-{c.id}",
                author=jsonld.person(c.author_name.strip() or nameless, c.author_url or None),
                published=datetime.fromtimestamp(c.created, self.site.tz),
                text=html_to_text(c.body_html),
                language=self.hreflang_of(c.lang),
                parent=f"{page_url}#c-{c.parent_id}" if c.parent_id in ids else None,
            )
            for c in listed
        ]
        return len(shown), items

    def comment_feed_links(self, row: PostRow, lang: Language) -> list[dict[str, str]]:
        """`<link rel="alternate">` of a post's comment feeds (RSS, Atom), [] when its comments
        are off (`comments: false`) or it is a page (`content/pages/`: no comments)."""
        if not row.comments or row.kind != "post":
            return []
        title = gettext(lang.locale, "comments_on", title=row.title)
        url = row.url
        return [
            {"type": mime, "title": title, "href": self.absolute(urls.comment_feed_url(url, fmt))}
            for fmt, mime in (("rss", "application/rss+xml"), ("atom", "application/atom+xml"))
        ]

    def author_nodes(self, raw: str, lang: Language) -> list[dict[str, Any]]:
        """JSON-LD `Person` of each author of a post: `url` their author page, `sameAs` the
        profile link written in front matter."""
        return [
            jsonld.person(a.name, self.absolute(people.bio_url(lang.prefix, a.key)), a.url)
            for a in post_authors(raw)
        ]
