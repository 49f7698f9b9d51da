"""The text a post contributes to the full-text index, computed without a database.

Pure, so that it can run in an indexing worker process: the one writer only inserts the values.
"""

from __future__ import annotations

from masthead.content.model import Post
from masthead.search.segment import BREAK, bigrams, segment

SearchValues = dict[str, str]  # FTS5 column name -> the text indexed (Han words segmented)


def search_values(post: Post) -> SearchValues:
    """The `search_docs` / `search_fts` column values of `post` (see `store.search.COLUMNS`):
    title, tags, categories, excerpt, body and code segmented by `search.segment`, `extra`
    holding the additional search-mode sub-words of every column, and `bigrams` the Han
    character bigrams of every column (`search.segment.bigrams`), one column after another."""
    extras: list[str] = []
    grams: list[str] = []
    values: SearchValues = {}
    for column, text in (
        ("title", post.title),
        ("tags", " ; ".join(t.name for t in post.tags)),
        ("categories", " ; ".join(c.name for c in post.categories)),
        ("excerpt", post.excerpt),
        ("body", post.text),
        ("code", post.code),
    ):
        values[column], extra = segment(text)
        if extra:
            extras.append(extra)
        gram = bigrams(text)
        if gram:
            grams.append(gram)
    values["extra"] = " ".join(extras)
    values["bigrams"] = f" {BREAK} ".join(grams)
    return values
