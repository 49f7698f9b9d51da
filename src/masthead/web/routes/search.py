"""Search routes: `/search` (and `/{prefix}/search`) pages and `GET /api/search` (JSON).

Both run `SearchService.search` with the options `_options` checks: the API's parameters are
typed, appear in the OpenAPI schema and are a 422 `{"error": {"status", "message"}}` when bad
(out of range, not a date, contradictory dates); the page shows the same message as a notice
above its form, with status 400. Search pages carry `noindex` and are not cached. The plain
API searches (`q`, `page`, `per_page`) are answered by `FastSearch`, the plain search pages
(`q`, `page`) by `FastSearchPage`, before any routing, with the router's exact bytes.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache, partial
from typing import Annotated, Any, TypeVar
from urllib.parse import parse_qsl, quote_plus

from fastapi import APIRouter, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.types import Scope, Send

from masthead.config import Language, Site
from masthead.content import urls
from masthead.i18n import gettext, long_date
from masthead.search import query as query_language
from masthead.search.query import day
from masthead.search.results import PER_PAGE, Options, Result, SearchError
from masthead.search.service import SearchService
from masthead.web.http.redirects import redirect
from masthead.web.render.renderer import Renderer
from masthead.web.routes import add, language, renderer

log = logging.getLogger(__name__)
T = TypeVar("T")

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
Year = Annotated[int | None, Query(ge=1000, le=9999)]  # MIN_YEAR, MAX_YEAR
PageNo = Annotated[int, Query(ge=1, le=10_000)]
PerPage = Annotated[int, Query(ge=1, le=50)]
Suggest = Annotated[
    bool, Query(description="A suggestion while typing: not recorded in the search log.")
]


MAX_TEXT = 200  # characters of a filter value
MAX_VALUES = 20  # values of a repeated filter
MIN_YEAR, MAX_YEAR = 1000, 9999


def _invalid(name: str, message: str) -> RequestValidationError:
    return RequestValidationError(
        [{"loc": ("query", name), "msg": message, "type": "value_error", "input": None}]
    )


def _number(name: str, value: int | str | None, low: int, high: int) -> int | None:
    """`value` as an int in [low, high]; a validation error naming `name` otherwise."""
    if value is None or value == "":
        return None
    text = str(value).strip()
    if not text.isascii() or not text.isdigit() or len(text) > len(str(high)):
        raise _invalid(name, f"must be a whole number from {low} to {high}")
    number = int(text)
    if not low <= number <= high:
        raise _invalid(name, f"must be a whole number from {low} to {high}")
    return number


def _page_number(value: int | str | None) -> int:
    """A page number for the search page: out of range is the nearest page (readers need no
    error for it); only text that is not a number is an error."""
    if value is None or value == "":
        return 1
    text = str(value).strip()
    digits = text[1:] if text[:1] in "+-" else text  # -1 is before the first page: page 1
    if not digits.isascii() or not digits.isdigit():
        raise _invalid("page", "must be a whole number")
    if text.startswith("-"):
        return 1
    return max(1, int(digits[:9]))  # past the last page is the last page: 9 digits are plenty


def _texts(name: str, values: list[str]) -> list[str]:
    if len(values) > MAX_VALUES:
        raise _invalid(name, f"at most {MAX_VALUES} values")
    for value in values:
        _text(name, value)
    return list(values)


def _text(name: str, value: str | None) -> str | None:
    if value is not None and len(value) > MAX_TEXT:
        raise _invalid(name, f"at most {MAX_TEXT} characters")
    return value


def _options(
    service: SearchService,
    lang: str | None,
    tags: list[str],
    categories: list[str],
    author: str | None,
    after: str | None,
    before: str | None,
    year: int | str | None,
    page: int | str | None,
    per_page: int = PER_PAGE,
) -> Options:
    """Typed search options from URL parameters. Bad values (not a date, not a number, out of
    range, an unknown language, after later than before) raise a validation error naming the
    parameter: 422 `{"error": {"status", "message"}}` in the API, a notice on the page."""
    lang, author = _text("lang", lang), _text("author", author)
    if lang and service.site.resolve_language(lang) is None:
        known = ", ".join(service.site.languages)
        raise _invalid("lang", f"unknown language {lang!r}; this site has {known}")
    start = day(after, end=False) if after else None
    end = day(before, end=True) if before else None
    if after and start is None:
        raise _invalid("after", f"{after[:MAX_TEXT]!r} is not a date (YYYY, YYYY-MM or YYYY-MM-DD)")
    if before and end is None:
        raise _invalid(
            "before", f"{before[:MAX_TEXT]!r} is not a date (YYYY, YYYY-MM or YYYY-MM-DD)"
        )
    return Options(
        lang,
        _texts("tag", tags),
        _texts("category", categories),
        author,
        start,
        end,
        _number("year", year, MIN_YEAR, MAX_YEAR),
        _page_number(page),
        per_page,
    )


def _search(
    service: SearchService, q: str, opts: Options, request: Request, record: bool = True
) -> Result:
    """Run the search; contradictory filters are a validation error like a bad parameter."""
    try:
        return service.search(q, opts, request.client.host if request.client else "", record)
    except SearchError as exc:
        raise _invalid(exc.param, exc.message) from exc


def router(languages: Sequence[Language]) -> APIRouter:
    """The JSON API, then the search page of every language of `languages`."""
    routes = APIRouter()
    routes.add_api_route(
        "/api/search", api_search, methods=["GET"], response_model=Result, tags=["search"]
    )
    # HEAD answers like GET (health checks, link checkers), outside the OpenAPI schema
    routes.add_api_route("/api/search", api_search, methods=["HEAD"], include_in_schema=False)
    for lang in languages:
        path = urls.lang_path(lang.prefix, "/search")
        add(routes, path, search_page, lang.code)
        routes.add_api_route(
            path + "/",
            to_search,
            methods=["GET"],
            include_in_schema=False,
            name=f"to_search/{lang.code}",
        )
    return routes


def _service(request: Request) -> SearchService:
    service: SearchService = request.app.state.search
    return service


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
    suggest: Suggest = False,
) -> dict[str, Any]:
    """Full-text search over published posts, ranked by bm25 (newest first on ties).
    422 with a message for a bad parameter or contradictory dates (after later than
    before, in parameters or in the query). `suggest=1`: a suggestion while the reader
    types (static/js/suggest.js), not recorded in the search log."""
    service = _service(request)
    opts = _options(service, lang, tag, category, author, after, before, year, page, per_page)
    return _search(service, q, opts, request, record=not suggest).as_dict()


def search_page(
    request: Request,
    q: Q = "",
    tag: Annotated[list[str], Query()] = [],  # noqa: B006 - FastAPI copies defaults
    category: Annotated[list[str], Query()] = [],  # noqa: B006
    author: str | None = None,
    after: str | None = None,
    before: str | None = None,
    year: str | None = None,
    page: str | None = None,
    lang_filter: Annotated[str | None, Query(alias="lang")] = None,
) -> Response:
    """The search page. Every parameter is checked here, not by FastAPI, so that a bad one
    is a notice on this page (status 400, the form kept), not a bare error page."""
    client = request.client.host if request.client else ""
    params = PageParams(q, tag, category, author, after, before, year, page, lang_filter)
    html, status = render_page(
        _service(request), renderer(request), language(request), params, client
    )
    return Response(
        html,
        status,
        media_type="text/html; charset=utf-8",
        headers={"Cache-Control": PAGE_CACHE_CONTROL},
    )


PAGE_CACHE_CONTROL = "private, no-cache"


@dataclass
class PageParams:
    """The search page's URL parameters, as given (checked by `render_page`)."""

    q: str = ""
    tag: list[str] = field(default_factory=list)
    category: list[str] = field(default_factory=list)
    author: str | None = None
    after: str | None = None
    before: str | None = None
    year: str | None = None
    page: str | None = None
    lang: str | None = None


def render_page(
    service: SearchService, rendering: Renderer, lang: Language, given: PageParams, client: str
) -> tuple[str, int]:
    """The search page in `lang` for `given`, searched for the reader at address `client`:
    `(html, status)`, 400 with a notice above the form for a bad parameter. One function for
    the router (`search_page`) and the fast path (`FastSearchPage`), so both send the same
    bytes."""
    q, tag, category = given.q, given.tag, given.category
    path = urls.lang_path(lang.prefix, "/search")
    notice = None
    try:
        opts = _options(
            service, given.lang, tag, category, given.author, given.after, given.before,
            given.year, given.page,
        )  # fmt: skip
        result = service.search(q, opts, client)
    except SearchError as exc:
        notice = gettext(lang.locale, exc.key, **exc.values) if exc.key else exc.message
        result = Result(q, 0, 1, 1, PER_PAGE, [], {}, {}, ran=False)
    except RequestValidationError as exc:
        first = exc.errors()[0]
        notice = f"{first['loc'][-1]}: {first['msg']}"
        result = Result(q, 0, 1, 1, PER_PAGE, [], {}, {}, ran=False)
    params = {
        k: v
        for k, v in {
            "q": q,
            "lang": given.lang,
            "tag": tag[-1] if tag else None,
            "category": category[-1] if category else None,
            "author": given.author,
            "after": given.after,
            "before": given.before,
            "year": given.year,
        }.items()
        if v not in (None, "")
    }
    return rendering.page(
        "search.html",
        lang,
        path=path,
        title=gettext(lang.locale, "search"),
        versions={
            code: (f"/{o.prefix}" if o.prefix else "") + "/search"
            for code, o in rendering.site.languages.items()
        },
        noindex=True,
        q=q,
        result=result,
        hits=[_hit_view(h, rendering, lang) for h in result.hits],
        facet_links=_facet_links(path, params, result, rendering.site.languages),
        active=_active_filters(path, params),
        pager=_pager(path, params, result),
        search_path=path,
        kept={k: v for k, v in params.items() if k != "q"},
        suggestion_links=[(s, _url(path, {**params, "q": s})) for s in result.suggestions],
        notice=notice,
        not_filters=[w for w in result.not_filters if not _is_lang_filter(w)],
        not_languages=[w for w in result.not_filters if _is_lang_filter(w)],
        site_languages=", ".join(rendering.site.languages),
        min_prefix=query_language.MIN_PREFIX,
        max_prefixes=query_language.MAX_PREFIXES,
        max_terms=query_language.MAX_TERMS,
        status=400 if notice else 200,
    )


def _is_lang_filter(typed: str) -> bool:
    """Whether `typed` (one of `Result.not_filters`) is a `lang:` filter: one that named no
    language of the site (the other ones are dates that are none)."""
    return typed.partition(":")[0].lower() == "lang"


def to_search(request: Request) -> Response:
    """`/search/` is `/search`: a redirect, the query kept. In an export with no masthead behind
    it (`SiteState.self_contained`) it is the search page of the files (`static_page`)."""
    if request.app.state.masthead.self_contained:
        html, status = static_page(renderer(request), language(request))
        return Response(html, status, media_type="text/html; charset=utf-8")
    return redirect(urls.lang_path(language(request).prefix, "/search"), request.url.query)


def static_page(rendering: Renderer, lang: Language) -> tuple[str, int]:
    """The search page of an export with no masthead behind it: the form, and the results that
    static/js/static-search.js finds in the export's own search index (export/search_index.py);
    without script, a note that search on this copy needs JavaScript."""
    path = urls.lang_path(lang.prefix, "/search/")
    return rendering.page(
        "search_static.html",
        lang,
        path=path,
        title=gettext(lang.locale, "search"),
        versions={
            code: urls.lang_path(o.prefix, "/search/")
            for code, o in rendering.site.languages.items()
        },
        noindex=True,
        search_path=path,
        languages_json=json.dumps(
            {
                o.code: {"name": o.name, "hreflang": o.hreflang}
                for o in rendering.site.languages.values()
            },
            ensure_ascii=False,
        ),
    )


def _hit_view(hit: Any, rendering: Renderer, lang: Language) -> dict[str, Any]:
    post_lang = rendering.site.languages.get(hit.lang, lang)
    return {
        # escaped text and bare <mark>, the allowlist last (masthead.search.snippets)
        "title_html": Markup(hit.title_html),  # nosec B704
        "snippet_html": Markup(hit.snippet_html),  # nosec B704
        "url": hit.url,
        "date": _long_date(hit.date, lang.locale),
        "datetime": datetime.fromisoformat(hit.date).isoformat(),  # <time datetime>: HTML's format
        "lang_name": post_lang.name,
        "hreflang": post_lang.hreflang,
        "draft": hit.draft,
    }


def _url(path: str, params: dict[str, Any]) -> str:
    """`path` with `params` as `urllib.parse.urlencode` writes them; each text quoted once per
    process (a page has a link per facet value, each repeating the query)."""
    if not params:
        return path
    return path + "?" + "&".join(_quoted(str(k)) + "=" + _quoted(str(v)) for k, v in params.items())


@lru_cache(maxsize=4096)
def _quoted(text: str) -> str:
    return quote_plus(text)


@lru_cache(maxsize=4096)
def _long_date(iso: str, locale: str) -> str:
    return long_date(datetime.fromisoformat(iso), locale)


def _facet_links(
    path: str, params: dict[str, Any], result: Result, languages: dict[str, Language]
) -> dict[str, list[dict]]:
    """Each facet value with its count and a link that narrows the search to it, and the BCP 47
    tag of the language its name is in (`Facet.lang`), else None."""
    param_of = {"lang": "lang", "tags": "tag", "categories": "category"}
    return {
        name: [
            {
                "name": f.name,
                "lang": languages[f.lang].hreflang if f.lang in languages else None,
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


# --- the fast path (web/cache/fastpath.py)

FAST_PARAMS = frozenset({"q", "page", "per_page"})
PAGE_PARAMS = frozenset({"q", "page"})
_NUMBER = re.compile(r"[1-9][0-9]{0,4}")


def _plain_params(query_string: bytes, allowed: frozenset[str]) -> dict[str, str] | None:
    """The parameters of `query_string` when each is given once and all are `allowed`, else
    None. Decoded as Starlette does: latin-1 bytes, then percent-decoded UTF-8 (errors
    replaced)."""
    pairs = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
    params = dict(pairs)
    if len(params) != len(pairs) or not params.keys() <= allowed:
        return None
    return params


def _start(status: int, body: bytes, media_type: bytes, *extra: tuple[bytes, bytes]) -> dict:
    headers = [
        *extra,
        (b"content-length", str(len(body)).encode("latin-1")),
        (b"content-type", media_type),
    ]
    return {"type": "http.response.start", "status": status, "headers": headers}


async def _run(service: SearchService, q: str, call: Callable[[], T]) -> T:
    """`call()` (a search of the query text `q`) on the event loop when it is short work: the
    catalog is current (a new generation's takes seconds to build) and `q` has no prefix
    (`a*` expands to thousands of terms: tens of milliseconds); else in a worker thread. The
    thread hop itself costs about 0.9 ms of CPU a request at 10,000 posts, a third of such a
    search (bench/bench_search_hop.py), and gains nothing: a worker's requests take turns on
    its one core, the GIL held by whichever runs Python."""
    if "*" not in q and service.is_current():
        return call()
    return await run_in_threadpool(call)


class FastSearch:
    """`GET /api/search?q=…` (with at most `page` and `per_page` besides, each once, valid) in
    pure ASGI, in front of the router: the same search and the same JSON bytes as
    `api_search`, without FastAPI's parameter and response-model machinery. Anything else
    (another parameter, a bad value, HEAD, an `Origin` header for CORS, contradictory dates)
    goes on to the router, which answers it as before. `app.state.search` is read per request."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def options(self, query_string: bytes) -> tuple[str, Options] | None:
        """`(q, options)` of a query string the fast path may answer, else None."""
        params = _plain_params(query_string, FAST_PARAMS)
        if params is None or "q" not in params:
            return None
        numbers = {}
        for name, low, high in (("page", 1, 10_000), ("per_page", 1, 50)):
            if name in params:
                text = params[name]
                if not _NUMBER.fullmatch(text) or not low <= int(text) <= high:
                    return None
                numbers[name] = int(text)
        opts = Options(page=numbers.get("page", 1), per_page=numbers.get("per_page", PER_PAGE))
        return params["q"], opts

    async def __call__(self, scope: Scope, send: Send, headers: list[tuple[bytes, bytes]]) -> bool:
        """Answer `scope` with `headers` added, if it is such a search; whether it was."""
        if scope["method"] != "GET" or any(name == b"origin" for name, _ in scope["headers"]):
            return False
        parsed = self.options(scope["query_string"])
        if parsed is None:
            return False
        service: SearchService = self.app.state.search
        client = scope.get("client")
        q, opts = parsed
        try:
            result = await _run(
                service, q, partial(service.search, q, opts, client[0] if client else "")
            )
        except SearchError:
            return False  # the router answers 422 with its message
        except Exception:  # a bug: the router answers it with the site's error page
            log.exception("fast path: /api/search failed; the router answers")
            return False
        body = json.dumps(
            result.as_dict(), ensure_ascii=False, allow_nan=False, separators=(",", ":")
        ).encode("utf-8")
        start = _start(200, body, b"application/json")
        start["headers"] += headers
        await send(start)
        await send({"type": "http.response.body", "body": body})
        return True


class FastSearchPage:
    """`GET /search?q=…` (or `/{prefix}/search`, the page in language `code`), with at most
    `page` besides, each once, in pure ASGI in front of the router: `render_page`, the
    function the router's `search_page` calls, so the same HTML bytes and headers, without
    routing and FastAPI's parameter machinery. Other parameters and HEAD go to the router."""

    def __init__(self, app: Any, code: str) -> None:
        self.app = app
        self.code = code

    async def __call__(self, scope: Scope, send: Send, headers: list[tuple[bytes, bytes]]) -> bool:
        """Answer `scope` with `headers` added, if it is such a search; whether it was."""
        if scope["method"] != "GET":
            return False
        params = _plain_params(scope["query_string"], PAGE_PARAMS)
        if params is None:
            return False
        state = self.app.state
        rendering: Renderer = state.renderer
        lang = rendering.site.languages[self.code]
        client = scope.get("client")
        given = PageParams(q=params.get("q", ""), page=params.get("page"))
        try:
            html, status = await _run(
                state.search,
                given.q,
                partial(
                    render_page, state.search, rendering, lang, given, client[0] if client else ""
                ),
            )
        except Exception:  # a bug: the router answers it with the site's error page
            log.exception("fast path: the search page failed; the router answers")
            return False
        body = html.encode("utf-8")
        start = _start(status, body, b"text/html; charset=utf-8",
                       (b"cache-control", PAGE_CACHE_CONTROL.encode("latin-1")))  # fmt: skip
        start["headers"] += headers
        await send(start)
        await send({"type": "http.response.body", "body": body})
        return True


def fast_paths(app: Any, site: Site) -> dict[str, Any]:
    """The fast-path handlers of the search (web/cache/fastpath.py `queries`): path → handler."""
    handlers: dict[str, Any] = {"/api/search": FastSearch(app)}
    for lang in site.languages.values():
        handlers[urls.lang_path(lang.prefix, "/search")] = FastSearchPage(app, lang.code)
    return handlers
