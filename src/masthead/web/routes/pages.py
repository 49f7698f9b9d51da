"""Pages: `/`, `/page/N/`, `/posts/SLUG/`, `/SLUG/` (pages), `/archive/`, `/tags/`, `/tags/KEY/`,
`/tags/KEY/page/N/` (categories likewise) for the default language, the same under `/PREFIX/`
for the others; the permalink catch-all (`[permalinks]` URLs such as `/blog/2024/05/02/name/`)
and `/_ref/PATH` (a redirect to the post written in a content file).

`refs()` holds `/_ref/`, `router(languages)` the page routes and `permalinks(languages)` the
catch-all, which goes after the `/static` and `/media` mounts. Non-default languages come first
in both, so their prefix wins over the default language's `/{slug}/`.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from masthead.config import Language
from masthead.content import urls
from masthead.errors import NotFound
from masthead.web.http.redirects import redirect
from masthead.web.render.base import TAXONOMIES
from masthead.web.routes import (
    add,
    bound,
    guanli,
    language,
    moved_with_query,
    renderer,
    respond,
    site_state,
)


def refs() -> APIRouter:
    """`/_ref/PATH` (it comes before the search, feed and page routes, as it always has)."""
    routes = APIRouter()
    add(routes, "/_ref/{target:path}", ref)
    return routes


def router(languages: Sequence[Language]) -> APIRouter:
    """The page routes of every language of `languages`, non-default languages first."""
    routes = APIRouter()
    for lang in _prefixed_first(languages):
        p, code = urls.lang_path(lang.prefix, ""), lang.code
        add(routes, f"{p}/", home, code)
        add(routes, f"{p}/page/{{n:pageno}}/", home_page, code)
        add(routes, f"{p}/posts/{{slug}}/", post, code)
        add(routes, f"{p}/archive/", archive, code)
        for taxonomy in TAXONOMIES:
            add(routes, f"{p}/{taxonomy}/", terms, code, taxonomy)
            add(routes, f"{p}/{taxonomy}/{{key}}/", term, code, taxonomy)
            add(routes, f"{p}/{taxonomy}/{{key}}/page/{{n:pageno}}/", term_page, code, taxonomy)
        add(routes, f"{p}/{{slug}}/", page, code)
    return routes


def permalinks(languages: Sequence[Language]) -> APIRouter:
    """The catch-all of every language of `languages`, non-default languages first."""
    routes = APIRouter()
    for lang in _prefixed_first(languages):
        add(routes, urls.lang_path(lang.prefix, "") + "/{path:path}", by_url, lang.code)
    return routes


def _prefixed_first(languages: Sequence[Language]) -> list[Language]:
    return sorted(languages, key=lambda lang: lang.prefix == "")


def ref(request: Request, target: str) -> Response:
    """301 to the URL of the post written in the content file `target`; 404 if none is."""
    state = site_state(request)
    content_dir = state.site.settings.content_dir
    url = urls.resolve_ref(quote(target), state.source_urls(), content_dir, None)
    if url is None:
        raise NotFound(f"no post is written in {target}")
    return redirect(url)


def home(request: Request) -> Response:
    lang = language(request)
    if request.url.query:  # WordPress's `/?p=12` and `/?page_id=3`, kept in a post's aliases
        old = moved_with_query(site_state(request), request.url.path, request.url.query)
        if old:
            return redirect(old)
    return respond(request, ("home", lang.code, 1), lambda: renderer(request).listing(lang, 1))


def home_page(request: Request, n: int) -> Response:
    lang = language(request)
    if n == 1:  # one URL per page: /page/1/ is the home page
        return redirect(lang.root, request.url.query)
    return respond(request, ("home", lang.code, n), lambda: renderer(request).listing(lang, n))


def post(request: Request, slug: str) -> Response:
    lang = language(request)
    url = urls.post_url(lang.prefix, slug)
    return _post(request, lang, url)


def _post(request: Request, lang: Language, url: str) -> Response:
    """A post, or page `?cpage=N` of its comments (cached apart; other parameters, such as
    the `?c=` a comment form redirects to, do not change the page)."""
    n = comment_page(request)
    key = ("post", url) if n == 1 else ("post", url, "comments", n)
    try:
        return respond(request, key, lambda: renderer(request).post(lang, url, n))
    except NotFound:
        return _preview(request, lang, url, n)


def _preview(request: Request, lang: Language, url: str, n: int = 1) -> Response:
    """A draft or scheduled post for a signed-in editor: marked, noindex, never cached; for
    anyone else the 404 it was."""
    if guanli.signed_in(request) is None:
        raise NotFound("no such post")
    html, status = renderer(request).post(lang, url, n, preview=True)
    return HTMLResponse(html, status, headers=guanli.PRIVATE)


MAX_COMMENT_PAGE = 999_999_999  # the largest list page number too (`PageNumber`)


def comment_page(request: Request) -> int:
    """`?cpage=N`: the page of comments asked for, 1 to 999,999,999 (a longer number is the
    largest); 1 when absent, 0 or no whole number (ASCII digits). Never an error: a link to a
    page of comments must not make the post vanish, and the post shows the page nearest to
    the number (`discussion.block`), as the search page does for `page`."""
    text = request.query_params.get("cpage", "").strip().lstrip("0")
    if not text.isascii() or not text.isdigit():
        return 1
    return int(text) if len(text) <= len(str(MAX_COMMENT_PAGE)) else MAX_COMMENT_PAGE


def page(request: Request, slug: str) -> Response:
    lang = language(request)
    url = urls.page_url(lang.prefix, slug)
    try:
        return respond(request, ("page", url), lambda: renderer(request).post(lang, url))
    except NotFound:
        return _preview(request, lang, url)


def archive(request: Request) -> Response:
    lang = language(request)
    return respond(request, ("archive", lang.code), lambda: renderer(request).archive(lang))


def terms(request: Request) -> Response:
    lang, taxonomy = language(request), bound(request)[1]
    return respond(request, (taxonomy, lang.code), lambda: renderer(request).terms(lang, taxonomy))


def term(request: Request, key: str) -> Response:
    return _term_listing(request, key, 1)


def term_page(request: Request, key: str, n: int) -> Response:
    if n == 1:
        lang, taxonomy = language(request), bound(request)[1]
        return redirect(urls.term_url(lang.prefix, taxonomy, key), request.url.query)
    return _term_listing(request, key, n)


def _term_listing(request: Request, key: str, n: int) -> Response:
    lang, taxonomy = language(request), bound(request)[1]
    return respond(
        request,
        (taxonomy, lang.code, key, n),
        lambda: renderer(request).listing(lang, n, taxonomy, key),
    )


def by_url(request: Request, path: str) -> Response:
    """A post or page at a `[permalinks]` pattern's URL (or its front-matter `url`), looked up
    by its exact URL and cached like the post route. Where none is, the not-found handler
    serves a file of the site's `static/` folder at that path, if there is one (web/errors.py)."""
    if not path.endswith("/"):  # every permalink ends with a slash; 404 offers the redirect
        raise NotFound("no such page")
    lang = language(request)
    url = quote(urls.lang_path(lang.prefix, "") + "/" + path)
    return _post(request, lang, url)
