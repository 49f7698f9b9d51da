"""Related posts of every post at once, for a build that renders them all.

`store.posts.related` answers for one post with one query (a few milliseconds on a site of
thousands of posts: it counts the shared tags of every post sharing one). A build asks for every
post, so it reads every published post's tags once (`store.posts.tagged_posts`) and answers from
memory, in the same order: the most shared tags first, then the newest, then the source path.
Posts with the same set of tags are kept together, newest first, so a post's answer looks at
each distinct set once rather than at each post.
"""

from __future__ import annotations

import heapq
import itertools
import json
from collections.abc import Iterable

from masthead.store.rows import RelatedPost, TaggedPost


class RelatedIndex:
    """`related(post_id, limit)` for every post of `posts` (newest first, then source)."""

    def __init__(self, posts: Iterable[TaggedPost]) -> None:
        self.posts: dict[int, tuple[TaggedPost, frozenset[str]]] = {}
        # (lang, tag set) -> its posts, in `tagged_posts` order (newest, then source)
        groups: dict[tuple[str, frozenset[str]], list[TaggedPost]] = {}
        for post in posts:
            tags = frozenset(json.loads(post.tags)) if post.tags else frozenset()
            self.posts[post.id] = (post, tags)
            if tags:
                groups.setdefault((post.lang, tags), []).append(post)
        self.groups: dict[str, list[tuple[frozenset[str], list[TaggedPost]]]] = {}
        for (lang, tags), members in groups.items():
            self.groups.setdefault(lang, []).append((tags, members))

    def __contains__(self, post_id: int) -> bool:
        return post_id in self.posts

    def related(self, post_id: int, limit: int) -> list[RelatedPost]:
        """Up to `limit` posts of the post's language sharing tags with it (as
        `store.posts.related` orders them)."""
        post, tags = self.posts[post_id]
        if not tags or limit <= 0:
            return []
        by_shared: dict[int, list[list[TaggedPost]]] = {}
        for other, members in self.groups.get(post.lang, []):
            n = len(tags & other)
            if n:
                by_shared.setdefault(n, []).append(members)
        out: list[RelatedPost] = []
        for n in sorted(by_shared, reverse=True):
            merged = heapq.merge(*by_shared[n], key=lambda p: (-p.date_ts, p.source))
            rest = (p for p in merged if p.id != post_id)
            for p in itertools.islice(rest, limit - len(out)):
                out.append(RelatedPost(p.id, p.title, p.url, p.date, n))
            if len(out) >= limit:
                break
        return out
