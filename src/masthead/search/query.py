"""The search query language, parsed into a safe FTS5 MATCH expression and filters.

Exactly these operators (also documented on the search page):

- plain words: all must match (`kubelet 节点`); Chinese runs are cut into words, each a phrase,
  or found as the phrase of their character bigrams (`search.segment`);
- `"exact phrase"`;
- `-word` or `-"phrase"`: exclude;
- `OR` (upper case) between two words: either;
- `word*`: prefix (of at least `MIN_PREFIX` letters or digits, at most `MAX_PREFIXES` a query;
  any other is a plain word);
- filters `tag:`, `category:`, `lang:`, `author:`, `after:YYYY[-MM[-DD]]`, `before:…` (both
  inclusive, whole days in the site's time zone), `year:YYYY`; values may be quoted
  (`tag:"machine learning"`). A value a filter cannot use (a date that is none, a `lang:` that
  is not one of the site's languages) makes it a plain word, listed in `Query.not_filters`.

Anything else is a plain word. User text never reaches MATCH raw: every term is an FTS5 string
(https://www.sqlite.org/fts5.html#fts5_strings) with `"` doubled, so no input is a syntax error;
terms without a letter or digit (`*`, `(`, emoji) are ignored.
"""

from __future__ import annotations

import calendar
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from masthead.search.segment import BREAK, HAN, ZWSP, bigram_phrase, query_words

MAX_QUERY = 1000  # characters; longer input is cut, not refused
MAX_TERMS = 32
# FTS5 merges the doclists of every indexed word a prefix expands to, at each statement: `a*`
# took 48 ms at 10,000 posts, 26 of them 0.7 s, `th*` 19 ms. Shorter prefixes, and those after
# the first few, are searched as plain words (as Elasticsearch bounds `max_expansions`).
MIN_PREFIX = 3  # letters or digits
MAX_PREFIXES = 3
BIGRAMS = "bigrams"  # the FTS5 column of Han character bigrams (store.search.COLUMNS)
FILTER_KEYS = ("tag", "category", "lang", "author", "after", "before", "year")
_TOKEN = re.compile(r'(-?)(?:([A-Za-z]+):)?("[^"]*"?|[^\s"]+"?[^\s]*)')
_WORDY = re.compile(r"\w", re.UNICODE)
_CONTROL = re.compile(rf"[\x00-\x1f\x7f\u200b-\u200f\u2028-\u202f\ufeff{BREAK}]")
_DAY = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$")


def _string(text: str) -> str:
    """An FTS5 string: the text in double quotes, inner quotes doubled."""
    return '"' + text.replace('"', '""') + '"'


@dataclass(frozen=True)
class InColumn:
    """A phrase to be matched in one column only (FTS5 column filter `column : "text"`)."""

    column: str
    text: str

    def fts(self) -> str:
        return f"{self.column} : {_string(self.text)}"


Alternative = str | InColumn


def _alternative(p: Alternative) -> str:
    return _string(p) if isinstance(p, str) else p.fts()


@dataclass(frozen=True)
class Term:
    """One word or phrase as typed. `phrases` are what it needs, all of them: each an FTS5
    string, or a tuple of alternatives (strings, or phrases in one column) any one of which
    will do."""

    text: str
    phrases: tuple[str | tuple[Alternative, ...], ...]
    prefix: bool = False

    def fts(self) -> str:
        parts = [
            _string(p) if isinstance(p, str) else "(" + " OR ".join(map(_alternative, p)) + ")"
            for p in self.phrases
        ]
        if self.prefix and isinstance(self.phrases[-1], str):
            parts[-1] += " *"
        return parts[0] if len(parts) == 1 else "(" + " AND ".join(parts) + ")"

    @property
    def words(self) -> list[str]:
        """The plain words of the term (for suggestions)."""
        return re.findall(r"\w+", self.text)


@dataclass
class Filters:
    tags: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    lang: str | None = None
    author: str | None = None
    after: date | None = None
    before: date | None = None  # inclusive

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {}
        for key in ("tags", "categories", "lang", "author", "after", "before"):
            value = getattr(self, key)
            if value:
                out[key] = value.isoformat() if isinstance(value, date) else value
        return out


@dataclass
class Query:
    """A parsed query: AND of OR-groups of terms, excluded terms and filters."""

    raw: str
    groups: list[list[Term]] = field(default_factory=list)
    excluded: list[Term] = field(default_factory=list)
    filters: Filters = field(default_factory=Filters)
    plain: list[str] = field(default_factory=list)  # the query's text without its filters
    # what the reader typed and the search did not use as typed, to say so on the page:
    as_words: list[str] = field(default_factory=list)  # `word*` searched as a plain word
    unsearched: list[str] = field(default_factory=list)  # terms after the first MAX_TERMS
    not_filters: list[str] = field(default_factory=list)  # `after:2023-13`: a plain word

    def match(self) -> str | None:
        """The FTS5 expression every result must match, or None when there are no terms."""
        if not self.groups:
            return None
        parts = []
        for group in self.groups:
            alts = [t.fts() for t in group]
            parts.append(alts[0] if len(alts) == 1 else "(" + " OR ".join(alts) + ")")
        return " AND ".join(parts)

    def exclusion(self) -> str | None:
        """The FTS5 expression no result may match, or None."""
        if not self.excluded:
            return None
        return " OR ".join(t.fts() for t in self.excluded)

    @property
    def words(self) -> list[str]:
        """Every searched word (for suggestions and highlights), without operators."""
        return [w for g in self.groups for t in g for w in t.words]

    @property
    def correctable(self) -> list[str]:
        """The words a "did you mean" may replace: those of plain terms, not of prefixes
        (`typo*` is meant as typed) nor of filters searched as words (`year:0`)."""
        return [
            w
            for g in self.groups
            for t in g
            if not t.prefix and t.text not in self.not_filters
            for w in t.words
        ]

    @property
    def empty(self) -> bool:
        return not self.groups and not self.excluded and not self.filters.as_dict()

    @property
    def without_filters(self) -> str:
        return " ".join(self.plain)


def _han(run: str) -> str | tuple[Alternative, ...]:
    """A Han run of a query: its words in a row (a phrase), the run as one indexed word, or
    (two characters or more) the phrase of its bigrams in the bigram column.

    `调度器` is cut into 调度 + 器; requiring them side by side keeps posts that merely contain
    both somewhere from matching, and the whole run covers texts where jieba kept it whole.
    Where the post's context made jieba cut otherwise (`调度|器会`), the bigrams find it.
    """
    if len(run) < 2:
        return run
    words = query_words(run)
    grams = InColumn(BIGRAMS, bigram_phrase(run))
    if len(words) <= 1:
        return (run, grams)
    return (" ".join(words), run, grams)


def _phrases(text: str) -> tuple[str | tuple[Alternative, ...], ...]:
    """What one typed word needs: Han runs (see `_han`) and the Latin parts, all of them."""
    out: list[str | tuple[Alternative, ...]] = []
    pos = 0
    for m in HAN.finditer(text):
        before = text[pos : m.start()]
        if _WORDY.search(before):
            out.append(before)
        out.append(_han(m.group(0)))
        pos = m.end()
    rest = text[pos:]
    if _WORDY.search(rest):
        out.append(rest)
    return tuple(p for p in out if not isinstance(p, str) or p.strip())


def _phrase(text: str) -> tuple[str | tuple[Alternative, ...], ...]:
    """An exact phrase: one FTS5 string, Han runs cut with the index's separator; a phrase that
    is one Han run of two characters or more may also match as its bigrams."""
    joined = HAN.sub(lambda m: ZWSP.join(query_words(m.group(0))), text)
    if not _WORDY.search(joined):
        return ()
    run = text.strip()
    if len(run) >= 2 and HAN.fullmatch(run):
        return ((joined, InColumn(BIGRAMS, bigram_phrase(run))),)
    return (joined,)


def day(value: str, end: bool) -> date | None:
    """`YYYY`, `YYYY-MM` or `YYYY-MM-DD` as the first (or with `end`, the last) day it covers;
    None when it is not such a date."""
    return _day(value, end)


def _day(value: str, end: bool) -> date | None:
    m = _DAY.match(value)
    if not m:
        return None
    y, mo, d = int(m.group(1)), m.group(2), m.group(3)
    try:
        if d:
            return date(y, int(mo), int(d))
        if mo:
            month = int(mo)
            last = calendar.monthrange(y, month)[1]
            return date(y, month, last if end else 1)
        return date(y, 12, 31) if end else date(y, 1, 1)
    except ValueError:
        return None


def _filter(
    filters: Filters, key: str, value: str, language: Callable[[str], bool] | None = None
) -> bool:
    """Apply `key:value`; False when the value is not valid (then it is a plain word): a date
    that is none, or a `lang:` value `language` does not know (not one of the site's)."""
    value = value.strip()
    if not value:
        return False
    if key == "tag":
        filters.tags.append(value)
    elif key == "category":
        filters.categories.append(value)
    elif key == "lang":
        if language is not None and not language(value):
            return False
        filters.lang = value
    elif key == "author":
        filters.author = value
    elif key in ("after", "before", "year"):
        if key == "year" and not re.fullmatch(r"\d{4}", value):
            return False
        start, end = _day(value, end=False), _day(value, end=True)
        if start is None or end is None:
            return False
        if key in ("after", "year"):
            filters.after = max(filters.after or start, start)
        if key in ("before", "year"):
            filters.before = min(filters.before or end, end)
    return True


def parse(raw: str, language: Callable[[str], bool] | None = None) -> Query:
    """Parse what a reader typed. Never raises; see the module docstring for the language.
    `language(value)`: whether `lang:value` names one of the site's languages (a code or an
    alias); one it does not is searched as a plain word and listed in `not_filters`, as a
    date that is none is. None: every value is taken as a language."""
    # NFKC: full-width Latin from Chinese input methods (ｋｕｂｅｌｅｔ) is plain Latin
    text = unicodedata.normalize("NFKC", _CONTROL.sub(" ", raw[:MAX_QUERY]))
    query = Query(raw=raw)
    pending_or = False
    prefixes = 0
    counted: set[str] = set()  # the distinct terms so far (at most MAX_TERMS)
    for m in _TOKEN.finditer(text):
        minus, key, body = m.group(1), m.group(2), m.group(3)
        if key and key.lower() in FILTER_KEYS and not minus:
            value = body[1:].rstrip('"') if body.startswith('"') else body
            if _filter(query.filters, key.lower(), value, language):
                continue
            query.not_filters.append(f"{key}:{body}")
        word = m.group(0)[len(minus) :] if not key else f"{key}:{body}"
        if word == "OR" and not minus:
            pending_or = bool(query.groups)
            continue
        if body.startswith('"') and not key:
            inner = body[1:-1] if len(body) > 1 and body.endswith('"') else body[1:]
            term = Term(inner, _phrase(inner))
        else:
            prefix = word.endswith("*") and _WORDY.search(word) is not None and not HAN.search(word)
            stripped = word.rstrip("*") if prefix else word
            if prefix and len(_WORDY.findall(stripped)) < MIN_PREFIX:
                prefix = False  # a plain word (see MIN_PREFIX)
                query.as_words.append(word)
            term = Term(stripped, _phrases(stripped), prefix=prefix and bool(_phrases(stripped)))
            if term.prefix and prefixes >= MAX_PREFIXES and _counted(term, minus) not in counted:
                term = Term(stripped, term.phrases)  # a plain word (see MAX_PREFIXES)
                query.as_words.append(word)
        if not term.phrases:
            pending_or = False
            continue
        key = _counted(term, minus)
        if key not in counted:  # a repeat counts once (it is searched once: _distinct_groups)
            if len(counted) >= MAX_TERMS:  # skipped, not the end: a filter after it still holds
                query.unsearched.append(m.group(0))
                pending_or = False
                continue
            counted.add(key)
            prefixes += term.prefix
        if minus:
            query.excluded.append(term)
            pending_or = False
            continue
        query.plain.append(m.group(0))
        if pending_or:
            query.groups[-1].append(term)
            pending_or = False
        else:
            query.groups.append([term])
    query.groups = _distinct_groups(query.groups)
    query.excluded = _distinct(query.excluded)
    return query


def _counted(term: Term, excluded: str) -> str:
    """The key of `term` among a query's distinct terms (`excluded`: its `-`, if any)."""
    return excluded + _key(term)


def _key(term: Term) -> str:
    """What FTS5 matches of `term`: its expression, ASCII case folded as unicode61 folds it."""
    fts = term.fts()
    return fts.lower() if fts.isascii() else fts


def _distinct(terms: list[Term]) -> list[Term]:
    """`terms` without the repeats of an earlier one (`_key`), in order."""
    seen: set[str] = set()
    out = []
    for term in terms:
        key = _key(term)
        if key not in seen:
            seen.add(key)
            out.append(term)
    return out


def _distinct_groups(groups: list[list[Term]]) -> list[list[Term]]:
    """`groups` without repeated alternatives in a group, nor a group that repeats an earlier
    one: `x AND x` matches what `x` does, and FTS5 would evaluate (and snippet() score) every
    copy; `the the …` (32 times) took about a second at 10,000 posts."""
    seen: set[frozenset[str]] = set()
    out = []
    for group in groups:
        group = _distinct(group)
        key = frozenset(map(_key, group))
        if key not in seen:
            seen.add(key)
            out.append(group)
    return out
