"""Search routes: `/search` (and `/{prefix}/search`) pages and `GET /api/search` (JSON).

Both run `SearchService.search`; the API's parameters are typed and validated (422 with a message
on bad ones) and appear in the OpenAPI schema. Search pages carry `noindex` and are not cached.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response

from masthead.config import Language
from masthead.i18n import gettext, long_date
from masthead.search.query import day
from masthead.search.service import Options, Result, SearchService
from masthead.web.views import Renderer

Q = Annotated[str, Query(description="The query; see the search page for the language.")]
Text = Annotated[str | None, Query(max_length=200)]
Texts = Annotated[list[str], Query(max_length=20, description="Repeat for several (all apply).")]
Day = Annotated[
    str | None,
    Query(
        pattern=r"^\d{4}(-\d{1,2}(-\d{1,2})?)?$",
        description="YYYY, YYYY-MM or YYYY-MM-DD, inclusive, in the site's time zone.",
    ),
]
Year = Annotated[int | None, Query(ge=1000, le=9999)]
PageNo = Annotated[int, Query(ge=1, le=10_000)]
PerPage = Annotated[int, Query(ge=1, le=50)]


def _invalid(name: str, message: str) -> RequestValidationError:
    return RequestValidationError(
        [{"loc": ("query", name), "msg": message, "type": "value_error", "input": None}]
    )


def _options(
    service: SearchService,
    lang: str | None,
    tags: list[str],
    categories: list[str],
    author: str | None,
    after: str | None,
    before: str | None,
    year: int | None,
    page: int,
    per_page: int = 10,
) -> Options:
    """Typed search options from URL parameters; bad values raise a validation error (422 in
    the API, 400 on pages) that names the parameter."""
    if lang and service.site.resolve_language(lang) is None:
        known = ", ".join(service.site.languages)
        raise _invalid("lang", f"unknown language {lang!r}; this site has {known}")
    start = day(after, end=False) if after else None
    end = day(before, end=True) if before else None
    if after and start is None:
        raise _invalid("after", f"{after!r} is not a date (YYYY, YYYY-MM or YYYY-MM-DD)")
    if before and end is None:
        raise _invalid("before", f"{before!r} is not a date (YYYY, YYYY-MM or YYYY-MM-DD)")
    return Options(
        lang, list(tags), list(categories), author, start, end, year, max(1, page), per_page
    )


def _client(request: Request) -> str:
    return request.client.host if request.client else ""


def install(app: FastAPI, service: SearchService, renderer: Renderer) -> None:
    """Add the search page of every language and the JSON API to `app`."""
    router = APIRouter()

    @router.get("/api/search", response_model=Result, tags=["search"])
    def api_search(
        request: Request,
        q: Q = "",
        lang: Text = None,
        tag: Texts = [],  # noqa: B006 - FastAPI copies defaults
        category: Texts = [],  # noqa: B006
        author: Text = None,
        after: Day = None,
        before: Day = None,
        year: Year = None,
        page: PageNo = 1,
        per_page: PerPage = 10,
    ) -> dict[str, Any]:
        """Full-text search over published posts, ranked by bm25 (newest first on ties)."""
        opts = _options(service, lang, tag, category, author, after, before, year, page, per_page)
        return service.search(q, opts, _client(request)).as_dict()

    app.include_router(router)
    for lang in renderer.site.languages.values():
        _page_route(app, service, renderer, lang)


def _page_route(app: FastAPI, service: SearchService, renderer: Renderer, lang: Language) -> None:
    path = (f"/{lang.prefix}" if lang.prefix else "") + "/search"

    def search_page(
        request: Request,
        q: Q = "",
        tag: Texts = [],  # noqa: B006 - FastAPI copies defaults
        category: Texts = [],  # noqa: B006
        author: Text = None,
        after: Day = None,
        before: Day = None,
        year: Year = None,
        page: int = 1,  # out of range: the nearest page, readers need no error for it
        lang_filter: Annotated[str | None, Query(alias="lang", max_length=200)] = None,
    ) -> Response:
        opts = _options(service, lang_filter, tag, category, author, after, before, year, page)
        result = service.search(q, opts, _client(request))
        params = {
            k: v
            for k, v in {
                "q": q,
                "lang": lang_filter,
                "tag": tag[-1] if tag else None,
                "category": category[-1] if category else None,
                "author": author,
                "after": after,
                "before": before,
                "year": year,
            }.items()
            if v not in (None, "")
        }
        html, status = renderer.page(
            "search.html",
            lang,
            path=path,
            title=gettext(lang.locale, "search"),
            versions={
                code: (f"/{o.prefix}" if o.prefix else "") + "/search"
                for code, o in renderer.site.languages.items()
            },
            noindex=True,
            q=q,
            result=result,
            hits=[_hit_view(h, renderer, lang) for h in result.hits],
            facet_links=_facet_links(path, params, result),
            active=_active_filters(path, params),
            pager=_pager(path, params, result),
            search_path=path,
            kept={k: v for k, v in params.items() if k != "q"},
            suggestion_links=[(s, _url(path, {**params, "q": s})) for s in result.suggestions],
        )
        return Response(
            html,
            status,
            media_type="text/html; charset=utf-8",
            headers={"Cache-Control": "private, no-cache"},
        )

    app.add_api_route(path, search_page, methods=["GET", "HEAD"], include_in_schema=False)
    app.add_api_route(path + "/", _redirect(path), methods=["GET"], include_in_schema=False)


def _redirect(path: str):  # type: ignore[no-untyped-def]
    from fastapi.responses import RedirectResponse

    def to_search(request: Request) -> Response:
        query = request.url.query
        return RedirectResponse(path + (f"?{query}" if query else ""), status_code=301)

    return to_search


def _hit_view(hit: Any, renderer: Renderer, lang: Language) -> dict[str, Any]:
    from datetime import datetime

    from markupsafe import Markup

    post_lang = renderer.site.languages.get(hit.lang, lang)
    return {
        # escaped text and bare <mark>, the allowlist last (masthead.search.snippets)
        "title_html": Markup(hit.title_html),  # nosec B704
        "snippet_html": Markup(hit.snippet_html),  # nosec B704
        "url": hit.url,
        "date": long_date(datetime.fromisoformat(hit.date), lang.locale),
        "lang_name": post_lang.name,
        "hreflang": post_lang.hreflang,
    }


def _url(path: str, params: dict[str, Any]) -> str:
    return path + ("?" + urlencode(params) if params else "")


def _facet_links(path: str, params: dict[str, Any], result: Result) -> dict[str, list[dict]]:
    """Each facet value with its count and a link that narrows the search to it."""
    param_of = {"lang": "lang", "tags": "tag", "categories": "category"}
    return {
        name: [
            {
                "name": f.name,
                "count": f.count,
                "url": _url(path, {**params, param_of[name]: f.key}),
                "active": str(params.get(param_of[name], "")) == f.key,
            }
            for f in facets
        ]
        for name, facets in result.facets.items()
    }


def _active_filters(path: str, params: dict[str, Any]) -> list[dict[str, str]]:
    """Filters given as parameters, each with a link that removes it."""
    return [
        {"label": f"{k}: {v}", "url": _url(path, {x: y for x, y in params.items() if x != k})}
        for k, v in params.items()
        if k != "q"
    ]


def _pager(path: str, params: dict[str, Any], result: Result) -> dict[str, str | None]:
    def page(n: int) -> str | None:
        if n < 1 or n > result.pages or not result.ran:
            return None
        return _url(path, {**params, **({"page": n} if n > 1 else {})})

    return {"newer": page(result.page - 1), "older": page(result.page + 1)}
