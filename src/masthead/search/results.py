"""What a search answers: its options (the URL's filters) in, its `Result` (hits, facets,
suggestions: the JSON of `GET /api/search`) out, and `SearchError` for a query that cannot run."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import date
from typing import Any

PER_PAGE = 10


@dataclass
class Options:
    """Filters given as URL parameters (they add to those typed in the query)."""

    lang: str | None = None
    tags: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    author: str | None = None
    after: date | None = None
    before: date | None = None
    year: int | None = None
    page: int = 1
    per_page: int = PER_PAGE


@dataclass
class Hit:
    title: str
    title_html: str
    url: str
    lang: str
    date: str
    snippet_html: str
    draft: bool = False  # only a `drafts` service (`--dev`) finds drafts


@dataclass
class Facet:
    key: str
    name: str
    count: int
    # the language code its name is written in: a language's own name, or a term only posts
    # of one language have (a Chinese tag); None when posts of several languages share it
    lang: str | None = None


@dataclass
class Result:
    """One search: the JSON of `GET /api/search`. HTML fields are escaped, with matches in
    `<mark>`; `ran` is False for a query with nothing to search (a prompt, not logged)."""

    query: str
    total: int
    page: int
    pages: int
    per_page: int
    hits: list[Hit]
    facets: dict[str, list[Facet]]
    filters: dict[str, Any]
    suggestions: list[str] = field(default_factory=list)
    without_filters: str | None = None
    latency_ms: float = 0.0
    ran: bool = True  # False for an empty query: a prompt, no search
    as_words: list[str] = field(default_factory=list)  # `word*` searched as plain words
    unsearched: list[str] = field(default_factory=list)  # terms past `query.MAX_TERMS`
    not_filters: list[str] = field(default_factory=list)  # `key:value` searched as words

    def as_dict(self) -> dict[str, Any]:
        """`dataclasses.asdict(self)`, built field by field (a tenth of its time: it runs for
        every API answer)."""
        return {
            "query": self.query,
            "total": self.total,
            "page": self.page,
            "pages": self.pages,
            "per_page": self.per_page,
            "hits": [
                {
                    "title": h.title,
                    "title_html": h.title_html,
                    "url": h.url,
                    "lang": h.lang,
                    "date": h.date,
                    "snippet_html": h.snippet_html,
                    "draft": h.draft,
                }
                for h in self.hits
            ],
            "facets": {
                name: [
                    {"key": f.key, "name": f.name, "count": f.count, "lang": f.lang} for f in facets
                ]
                for name, facets in self.facets.items()
            },
            "filters": copy.deepcopy(self.filters),
            "suggestions": list(self.suggestions),
            "without_filters": self.without_filters,
            "latency_ms": self.latency_ms,
            "ran": self.ran,
            "as_words": list(self.as_words),
            "unsearched": list(self.unsearched),
            "not_filters": list(self.not_filters),
        }


class SearchError(ValueError):
    """A search that cannot run as asked (filters that contradict each other). `param` names
    the filter, `message` says why in English: the API answers 422; the search page shows the
    interface text `key` (masthead.i18n) filled from `values` in the page's language."""

    def __init__(
        self, param: str, message: str, key: str = "", values: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.param = param
        self.message = message
        self.key = key
        self.values = values or {}
