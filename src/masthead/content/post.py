"""A content file's bytes to a frozen `Post`: the pure heart of the content engine.

    bytes ─decode─▶ text ─split─▶ (front matter, body) ─normalise─▶ Meta
                                   body ─shortcodes─▶ Markdown ─render─▶ HTML ─sanitize+links─▶

The last step parses the HTML once (nh3): the allowlist applies and every URL attribute is rewritten
there (relative links to `/media/…` or `/_ref/…`, `content.urls`), never by patterns over the
markup. `ref`/`relref` shortcodes are tokens until the HTML shows where they stand: a link's
target, or a link whose text the page makes the permalink (`content.refs`). With
`raw_html = true` the site trusts its authors: their HTML is kept (scripts, iframes, event
handlers) but passes the same parser for the link rewriting (`content.sanitize`).

Raises `ContentError(path, line, reason)` for a file that cannot be published; problems that do
not stop publication (unknown shortcodes) are returned in `Post.warnings`. A file Hugo renders no
page for (a headless bundle, `build.render: never`) raises `NotRendered`: no page, no error.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, unquote

from masthead.config import Site
from masthead.content import (
    authors,
    frontmatter,
    images,
    markdown,
    math,
    refs,
    responsive,
    sanitize,
    shortcodes,
    source,
    text,
    thumbs,
    translations,
    urls,
)
from masthead.content.discover import classify
from masthead.content.headings import build_toc, render_toc
from masthead.content.meta import MENU_KEYS, menu_entry, normalise, term_key, url_suffix
from masthead.content.model import Post, Term
from masthead.content.permalinks import Fields, expand
from masthead.content.tree import MORE
from masthead.errors import ContentError, ContentIssue
from masthead.i18n import gettext

SUMMARY_LIMIT = 300  # characters of a summary written by hand (front matter or <!--more-->)


class NotRendered(Exception):
    """A content file Hugo renders no page for: a headless bundle (`headless: true`) or one
    with `build.render: never` (or `link`, or Hugo's older `_build` and `render: false`).
    It is not published and is no error; `issue` (severity info) says why, for `check`."""

    def __init__(self, path: str, line: int, reason: str) -> None:
        super().__init__(f"{path}:{line}: {reason}")
        self.issue = ContentIssue(path, line, reason, "info")


def _not_rendered(data: dict[str, Any], lines: dict[str, int]) -> tuple[int, str] | None:
    """Where and why front matter `data` asks for no page (see `NotRendered`), or None."""
    headless = data.get("headless")
    if headless is True or str(headless).lower() == "true":
        return lines.get("headless", 1), "not published: a headless bundle (headless: true)"
    key = next((k for k in ("build", "_build") if isinstance(data.get(k), dict)), None)
    if key is None:
        return None
    render = data[key].get("render")
    if render is False or str(render).lower() in ("never", "link", "false"):
        shown = "false" if render is False else str(render)
        return lines.get(key, 1), f"not published: {key}.render is {shown}"
    return None


def _params(data: dict[str, Any], site_params: dict[str, Any]) -> Callable[[str], object]:
    """The `param` shortcode's lookup: a dotted key (`author.name`), case-insensitive as in
    Hugo, in the front matter, then its `params` table, then the site's `params`."""

    def dig(table: object, parts: list[str]) -> object:
        for part in parts:
            if not isinstance(table, dict):
                return None
            table = next((v for k, v in table.items() if str(k).lower() == part.lower()), None)
        return table

    def find(key: str) -> object:
        parts = key.strip().split(".")
        for table in (data, data.get("params"), site_params):
            value = dig(table, parts)
            if value is not None:
                return value
        return None

    return find


def _line_of(body: str, offset: int, body_line: int) -> int:
    return body_line + body.count("\n", 0, offset)


_LANG_LIKE = re.compile(r"^[a-z]{2,3}(?:[-_][a-z]{2,4})?$", re.IGNORECASE)


def _suffix_warning(site: Site, path: str, rel: str) -> tuple[ContentIssue, ...]:
    """A file suffix that looks like a language the site does not have (`post.fr.md`)."""
    stem = rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    if "." not in stem:
        return ()
    tail = stem.rsplit(".", 1)[1]
    if _LANG_LIKE.match(tail) and site.resolve_language(tail) is None:
        known = ", ".join(site.languages)
        reason = (
            f"file suffix '.{tail}' looks like a language this site does not have ({known}); "
            "the post is published in the default language with the suffix in its slug"
        )
        return (ContentIssue(path, 0, reason, "warning"),)
    return ()


def _menu_warnings(
    path: str, extra: dict[str, Any], lines: dict[str, int]
) -> tuple[ContentIssue, ...]:
    """Warnings, at the line of the `menu` key, for a front-matter menu entry that is left out
    or partly ignored (`meta.menu_entry`); the post itself publishes."""
    _, problems = menu_entry(extra)
    line = next((lines[k] for k in MENU_KEYS if k in lines), 1)
    return tuple(ContentIssue(path, line, why, "warning") for why in problems)


def _plain_text(
    plain: text.PlainText | None, calls: refs.Refs, formulas: math.Formulas
) -> text.PlainText | None:
    """`plain` with the `ref`/`relref` tokens in it as their targets, as written, and the
    formulas as their TeX (as written in code)."""
    if plain is None:
        return None
    return text.PlainText(
        formulas.text(calls.text(plain.prose)),
        formulas.source(calls.text(plain.code)),
        formulas.text(calls.text(plain.excerpt)),
        plain.divided,
    )


def _math_warnings(
    path: str, body: str, body_line: int, formulas: math.Formulas
) -> tuple[ContentIssue, ...]:
    """A warning, at its line in the file, for each formula that does not convert. Formulas are
    found after the shortcodes are expanded: the line is where the source first stands."""
    found: list[ContentIssue] = []
    for offset, why in formulas.warnings():
        source = formulas.found_at(offset)
        at = body.find(source) if source else -1
        found.append(ContentIssue(path, _line_of(body, max(at, 0), body_line), why, "warning"))
    return tuple(found)


def _front_matter_url(url: str, written: object, prefix: str, languages: int) -> str:
    """The permalink front matter's `url` gives (`meta.Meta._url`), as Hugo reads it: from the
    site's root, except a `url` without a leading slash on a site of several languages, which
    is under the post's language prefix (https://gohugo.io/content-management/urls/)."""
    if not url or languages < 2 or not prefix or str(written).lstrip().startswith("/"):
        return url
    return f"/{quote(prefix)}{url}"


def _old_file_url(given: str, written: object, url: str) -> tuple[str, ...]:
    """The old address of a front-matter `url` written as a file name (`/2010/01/post.html`
    for the page now at `/2010/01/post/`), which redirects to the page as an alias does."""
    suffix = url_suffix(written) if given else ""
    return (unquote(url).rstrip("/") + suffix,) if suffix else ()


def _aliases(written: tuple[str, ...], more: tuple[str, ...], url: str) -> tuple[str, ...]:
    """The post's old URL paths (percent-encoded, a slash at each end): an alias with a
    leading slash is a path from the site's root; one without (`old-name`, `../old/path`) is
    relative to the post's own folder, as in Hugo (`/posts/new/` with `old-name`:
    `/posts/old-name/`)."""
    folder = posixpath.dirname(unquote(url).rstrip("/")) or "/"
    out = []
    for alias in (*written, *more):
        text = alias.strip()
        if text and not text.startswith(("/", "?")) and sanitize.scheme(text) == "":
            text = posixpath.normpath(posixpath.join(folder, text))
        if text.strip("/"):
            out.append(alias_path(text))
    return tuple(out)


def parse_post(site: Site, rel: str, raw: bytes) -> Post:
    """Parse the content file at content-relative path `rel` whose bytes are `raw`.

    Raises ContentError with the site-relative path, 1-based line and reason.
    """
    path = posixpath.join(site.settings.content_dir, rel)
    info = classify(site, rel)
    if info.kind == "author":
        return authors.parse_bio(site, info, raw)
    fm = frontmatter.split(path, source.decode(path, raw))
    skip = _not_rendered(fm.data, fm.lines)
    if skip is not None:
        raise NotRendered(path, *skip)
    meta, extra, problems = normalise(fm.data, fm.lines, site.tz)
    if problems:
        line, reason = problems[0]
        raise ContentError(path, line, reason)
    lang = site.default_language
    if meta.lang:
        found = site.resolve_language(meta.lang)
        if found is None:
            known = ", ".join(site.languages)
            raise ContentError(
                path, fm.lines.get("lang", 1), f"unknown language {meta.lang!r} (site has {known})"
            )
        lang = found
    elif info.lang:
        lang = site.languages[info.lang]
    locale = lang.locale

    calls = refs.Refs(info.folder)  # the body's ref/relref shortcodes

    def label(key: str) -> str:
        return gettext(locale, key)

    body, sc_warnings = shortcodes.expand(
        fm.body,
        ref=calls.token,
        inline=markdown.render_inline,
        text=label,
        param=_params(fm.data, site.settings.params),
    )
    formulas = math.Formulas()  # TeX to tokens, and to MathML once sanitized (content/math.py)
    body = formulas.extract(body)
    labels = {
        "footnotes_label": label("footnotes"),
        "backref_label": label("back_to_content"),
        "code_label": label("code_label"),
        "table_label": label("table_label"),
    }
    try:
        rendered = markdown.render(body, labels)
    except markdown.NestingError as exc:
        raise ContentError(path, fm.body_line, str(exc)) from None
    html = sanitize.clean(
        rendered.html,
        lambda url: urls.resolve_relative(calls.url(url), info.folder),
        trusted=site.settings.raw_html,
    )
    html = calls.place(html, trusted=site.settings.raw_html)  # ends with the sanitizer
    if formulas.found:
        html = sanitize.clean(formulas.place(html), trusted=site.settings.raw_html, mathml=True)
    html = images.add_sizes(html, site.content_dir)  # integers only: safe after sanitizing
    from_tokens = _plain_text(rendered.text, calls, formulas)  # None: the HTML's text is needed
    headings = [
        (level, hid, formulas.text(calls.text(title))) for level, hid, title in rendered.headings
    ]
    plain, code = (
        (from_tokens.prose, from_tokens.code) if from_tokens else text.prose_and_code(html)
    )
    words, cjk = text.count_words(plain)
    lo, hi = site.settings.toc_levels
    slug = urls.segment(meta.slug) or info.slug
    prefix = lang.prefix
    patterns = site.settings.permalinks
    pattern = patterns.posts if info.kind == "post" else patterns.pages
    url = _front_matter_url(meta.url, fm.data.get("url"), prefix, len(site.languages)) or expand(
        pattern,
        prefix,
        Fields(meta.date, meta.title, slug if meta.slug else "", info.slug, info.section),
    )
    if meta.excerpt:
        excerpt = text.truncate(meta.excerpt, SUMMARY_LIMIT)
    elif from_tokens and from_tokens.excerpt:
        limit = SUMMARY_LIMIT if from_tokens.divided else 200
        excerpt = text.truncate(from_tokens.excerpt, limit)
    elif from_tokens is None and MORE in rendered.html:
        before = sanitize.clean(rendered.html.split(MORE, 1)[0], lambda url: url)
        excerpt = text.truncate(text.html_to_text(before).replace("\n", " "), SUMMARY_LIMIT)
    else:
        excerpt = text.excerpt_from_html(html)
    cover = urls.resolve_relative(meta.cover, info.folder, file=True) if meta.cover else ""
    html = responsive.add_renditions(  # WebP renditions of its photos, made once
        html, site.content_dir, thumbs.folder_for(site.database_path), cover=bool(cover)
    )
    cover_warning: tuple[ContentIssue, ...] = ()
    if cover and sanitize.scheme(cover) not in ("", "http", "https"):
        line = fm.lines.get("cover", fm.lines.get("image", 1))
        reason = f"cover {meta.cover!r} is not an image URL (http, https or a file); left out"
        cover_warning = (ContentIssue(path, line, reason, "warning"),)
        cover = ""
    warnings = (
        tuple(
            ContentIssue(path, _line_of(fm.body, off, fm.body_line), why, "warning")
            for off, why in sc_warnings
        )
        + _suffix_warning(site, path, rel)
        + cover_warning
        + _menu_warnings(path, extra, fm.lines)
        + _math_warnings(path, fm.body, fm.body_line, formulas)
    )
    return Post(
        source=path,
        kind=info.kind,
        lang=lang.code,
        slug=slug,
        url=url,
        title=meta.title,
        date=meta.date,
        updated=meta.updated,
        authors=meta.author,
        categories=tuple(Term(n, term_key(n)) for n in meta.category),
        tags=tuple(Term(n, term_key(n)) for n in meta.tags),
        excerpt=excerpt,
        cover=cover,
        draft=meta.draft,
        noindex=meta.noindex,
        comments=meta.comments,
        show_toc=meta.toc,
        canonical=meta.canonical,
        translation_key=("k:" + meta.translationKey) if meta.translationKey else "p:" + info.base,
        aliases=_aliases(meta.aliases, _old_file_url(meta.url, fm.data.get("url"), url), url),
        html=html,
        toc_html=render_toc(build_toc(headings, lo, hi)),
        text=plain,
        code=code,
        word_count=words + cjk,
        reading_minutes=text.reading_minutes(words, cjk),
        extra=extra,
        warnings=warnings,
        series=tuple(Term(n, term_key(n)) for n in meta.series),
        series_weight=meta.series_weight,
        translation_of=meta.translation_of,
        body_hash=translations.body_hash(fm.body),
        body=fm.body,
    )


def alias_path(alias: str) -> str:
    """An old URL from `aliases` as stored and looked up: its path percent-encoded with a
    trailing slash (`/2019/05/hello/`); a query it has is kept after it (WordPress's `/?p=12`,
    `/index.php?page_id=3`: `/?p=12`, `/index.php/?page_id=3`), see `query_alias`."""
    path, mark, query = alias.partition("?")
    path = path.strip("/")
    stored = "/" + quote(path) + "/" if path else "/"
    return stored + ("?" + query_alias(query) if mark and query else "")


def query_alias(query: str) -> str:
    """A URL's query in the form aliases store it: decoded, then percent-encoded one way."""
    return quote(unquote(query), safe="=&+")
