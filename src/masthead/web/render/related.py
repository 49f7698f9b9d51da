"""Related posts of every post at once, for a build that renders them all.

`store.posts.related` answers for one post with one query (a few milliseconds on a site of
thousands of posts: it counts the shared tags of every post sharing one). A build asks for every
post, so it reads every published post's tags once (`store.posts.tagged_posts`) and answers from
memory, in the same order: the most shared tags first, then the newest, then the source path.
Each tag of each language keeps its posts' ranks in that order (newest, then source), so a
post's answer counts only the posts sharing a tag with it (not every post of its language).
"""

from __future__ import annotations

import heapq
import json
from collections import Counter
from collections.abc import Iterable

from masthead.store.rows import RelatedPost, TaggedPost


class RelatedIndex:
    """`related(post_id, limit)` for every post of `posts` (newest first, then source)."""

    def __init__(self, posts: Iterable[TaggedPost]) -> None:
        self.posts: list[TaggedPost] = []  # by rank: newest first, then source
        self.rank: dict[int, int] = {}  # post id -> its rank
        self.tags: dict[int, tuple[str, ...]] = {}  # rank -> its tag keys
        self.tagged: dict[tuple[str, str], list[int]] = {}  # (lang, tag) -> ranks, ascending
        for post in posts:
            n = len(self.posts)
            self.posts.append(post)
            self.rank[post.id] = n
            tags = tuple(dict.fromkeys(json.loads(post.tags))) if post.tags else ()
            self.tags[n] = tags
            for tag in tags:
                self.tagged.setdefault((post.lang, tag), []).append(n)

    def __contains__(self, post_id: int) -> bool:
        return post_id in self.rank

    def related(self, post_id: int, limit: int) -> list[RelatedPost]:
        """Up to `limit` posts of the post's language sharing tags with it (as
        `store.posts.related` orders them)."""
        mine = self.rank[post_id]
        post, tags = self.posts[mine], self.tags[mine]
        if not tags or limit <= 0:
            return []
        shared: Counter[int] = Counter()
        for tag in tags:
            shared.update(self.tagged[(post.lang, tag)])
        del shared[mine]
        # one int per post, smallest first: the most shared tags, then the lowest rank
        span = len(self.posts)
        best = heapq.nsmallest(limit, [n - count * span for n, count in shared.items()])
        out = []
        for key in best:
            count = -(key // span)
            p = self.posts[key + count * span]
            out.append(RelatedPost(p.id, p.title, p.url, p.date, count))
        return out
