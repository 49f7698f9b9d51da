"""`masthead check`: validate every content file without writing the database.

Reports parse errors (the file would be left out), duplicate slugs (blaming the newcomer: the post
the site's index shows at the URL keeps it, read from the database when there is one, opened
read-only; the older post by date only between posts the index does not have), unknown shortcodes,
links to content files that do not exist (`ref`/`relref` in running text too: they are `/_ref/`
links, `content.refs`), covers that are no readable image,
two posts of one language with one `translationKey` and front-matter menu entries left out or
partly ignored (warnings), translations behind their original (info,
`content.translations`), languages whose posts get no share card for want of a font (a
warning, `content.cards`), and every file and folder the site skips (`discover.skipped`): info
for what a normal site has (`_index.md`, `.git/`, editor backups), a warning for a content
format masthead does not render (`.org`, `.adoc`, `.rst`…), whose text would silently be missing;
and the `static/` folder's clashes and missing files (`indexing.static_files`).
"""

from __future__ import annotations

from pathlib import Path

from masthead.config import Site
from masthead.content import sanitize, translations, urls
from masthead.content.discover import skipped, walk
from masthead.content.model import Post
from masthead.content.post import NotRendered, parse_post
from masthead.errors import ContentError, ContentIssue
from masthead.indexing.static_files import check_static, line_mentioning
from masthead.store import check as check_store
from masthead.store.posts import DUPLICATE_RULE


def check_site(site: Site) -> list[ContentIssue]:
    """Every problem in the site's content, sorted by path and line."""
    issues: list[ContentIssue] = []
    posts: list[Post] = []
    for rel in walk(site.content_dir) if site.content_dir.is_dir() else []:
        try:
            post = parse_post(site, rel, (site.content_dir / rel).read_bytes())
        except (ContentError, NotRendered) as exc:
            issues.append(exc.issue)
            continue
        except OSError as exc:
            issues.append(ContentIssue(f"{site.settings.content_dir}/{rel}", 0, str(exc)))
            continue
        posts.append(post)
        issues.extend(post.warnings)
    incumbents = _incumbents(site)
    holders: dict[tuple[str, bool], Post] = {}
    for post in sorted(
        posts, key=lambda p: (incumbents.get((p.url, p.draft)) != p.source, p.date, p.source)
    ):
        holder = holders.setdefault((post.url, post.draft), post)
        if holder is not post:
            issues.append(
                ContentIssue(
                    post.source,
                    1,
                    f"duplicate slug: {post.url} already belongs to {holder.source} "
                    f"({DUPLICATE_RULE}; set another slug)",
                )
            )
    table = urls.SourceTable({p.source: urls.Source(p.url, p.lang) for p in posts})  # found or not
    for post in posts:
        for link in _links(post, urls.REF_PREFIX):
            ref = link.partition("#")[0]
            if not ref.lower().endswith(urls.MARKDOWN_SUFFIXES):
                continue  # a folder that is no post is a file beside it: _missing_files checks it
            if urls.resolve_ref(ref, table, site.settings.content_dir, post.lang) is None:
                target = urls.unquote(ref)
                line = line_mentioning(site, post.source, target.rsplit("/", 1)[-1])
                issues.append(
                    ContentIssue(
                        post.source,
                        line,
                        f"broken link to {target}: no published content file has that path",
                        "warning",
                    )
                )
    issues.extend(_missing_files(site, posts, table))
    issues.extend(_broken_covers(site, posts))
    issues.extend(_translation_clashes(site, posts))
    issues.extend(_behind(site, posts))
    issues.extend(_card_fonts(site, posts))
    issues.extend(_skipped(site))
    issues.extend(check_static(site, posts))
    return sorted(issues, key=lambda i: (i.path, i.line, i.reason))


def _incumbents(site: Site) -> dict[tuple[str, bool], str]:
    """(URL, draft) → the content file that holds it in the site's index (a post shown there,
    else the last holder in `url_history`), as `store.posts.resolve_duplicates` decides; empty
    when there is no database or it cannot be read. Opened read-only: `check` never writes."""
    path = site.database_path
    if not path.is_file():
        return {}
    # empty for a file that is not a masthead database, or an older schema: the date rule alone
    rows = check_store.url_holders(path)
    return {(url, bool(draft)): source for url, draft, source, _ in rows}  # shown ones last


def _links(post: Post, prefix: str) -> list[str]:
    """The URLs in `post`'s body that start with `prefix`, without it (from parsed attributes)."""
    return [u[len(prefix) :] for u in sanitize.urls_in(post.html) if u.startswith(prefix)]


def _missing_files(site: Site, posts: list[Post], table: urls.SourceTable) -> list[ContentIssue]:
    """Warnings for covers, images and files beside a post that do not exist (a folder link
    that names no post is a file link)."""
    out: list[ContentIssue] = []
    content_dir = site.settings.content_dir
    for post in posts:
        targets = [u.partition("#")[0].partition("?")[0] for u in _links(post, urls.MEDIA_PREFIX)]
        targets += [
            ref.partition("#")[0]
            for ref in _links(post, urls.REF_PREFIX)
            if not ref.partition("#")[0].lower().endswith(urls.MARKDOWN_SUFFIXES)
            and urls.resolve_ref(ref.partition("#")[0], table, content_dir, post.lang) is None
        ]
        if post.cover.startswith(urls.MEDIA_PREFIX):
            targets.append(post.cover[len(urls.MEDIA_PREFIX) :])
        for target in dict.fromkeys(targets):
            rel = urls.unquote(target)
            if not _is_file(site.content_dir / rel):
                name = rel.rsplit("/", 1)[-1]
                out.append(
                    ContentIssue(
                        post.source,
                        line_mentioning(site, post.source, name),
                        f"file not found: {name} (looked for {site.settings.content_dir}/{rel})",
                        "warning",
                    )
                )
    return out


def _broken_covers(site: Site, posts: list[Post]) -> list[ContentIssue]:
    """Warnings for raster covers beside posts that Pillow cannot read: their list cards show
    no thumbnail (content/thumbs.py)."""
    from masthead.content import thumbs

    out: list[ContentIssue] = []
    for post in posts:
        rel = urls.unquote(post.cover[len(urls.MEDIA_PREFIX) :])
        path = site.content_dir / rel
        if not post.cover.startswith(urls.MEDIA_PREFIX) or path.suffix.lower() not in thumbs.RASTER:
            continue
        why = thumbs.problem(path) if _is_file(path) else None
        if why is not None:
            line = line_mentioning(site, post.source, rel.rsplit("/", 1)[-1])
            reason = f"cover {rel.rsplit('/', 1)[-1]}: {why}; list cards show no thumbnail"
            out.append(ContentIssue(post.source, line, reason, "warning"))
    return out


def _is_file(path: Path) -> bool:
    """`path.is_file()`, False for a name the file system cannot hold (too long, NUL)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _skipped(site: Site) -> list[ContentIssue]:
    """`path:0: skipped: reason` for every file and folder under the content folder left out."""
    if not site.content_dir.is_dir():
        return []
    return [
        ContentIssue(
            f"{site.settings.content_dir}/{s.rel}",
            0,
            f"skipped: {s.reason}",
            "warning" if s.surprising else "info",
        )
        for s in skipped(site.content_dir)
    ]


def _translation_clashes(site: Site, posts: list[Post]) -> list[ContentIssue]:
    """A warning for each post whose language already has a post with its `translationKey`
    (a translation set holds one post per language; which one a page links to is arbitrary)."""
    out: list[ContentIssue] = []
    first: dict[tuple[str, str], Post] = {}
    for post in sorted(posts, key=lambda p: p.source):
        if not post.translation_key.startswith("k:"):
            continue  # keys from the file path cannot clash within one language
        holder = first.setdefault((post.lang, post.translation_key), post)
        if holder is not post:
            key = post.translation_key[2:]
            out.append(
                ContentIssue(
                    post.source,
                    line_mentioning(site, post.source, "translationKey"),
                    f"translationKey {key!r} is also claimed by {holder.source} in language "
                    f"{post.lang!r}: one post per language can have it",
                    "warning",
                )
            )
    return out


def _behind(site: Site, posts: list[Post]) -> list[ContentIssue]:
    """An info line for each translation whose original's body changed since the translation
    was last marked current (`translation_of`); a warning for a `translation_of` in a group
    with no original to compare with."""
    groups: dict[tuple[str, str], list[Post]] = {}
    for post in posts:
        groups.setdefault((post.translation_key, post.kind), []).append(post)
    out: list[ContentIssue] = []
    default = site.settings.default_language
    for group in groups.values():
        if not any(p.translation_of for p in group):
            continue
        dates = [p.date.timestamp() for p in group]
        if translations.original_of(group, default, dates) is None:
            for post in group:
                line = line_mentioning(site, post.source, "translation_of")
                reason = "translation_of names an original, but no post of its translation "
                reason += "group is one (every post has translation_of)"
                out.append(ContentIssue(post.source, line, reason, "warning"))
            continue
        for post, original in translations.behind(group, default, dates):
            out.append(
                ContentIssue(
                    post.source,
                    line_mentioning(site, post.source, "translation_of"),
                    f"translation behind its original {original.source}: the original changed "
                    f"since translation_of {post.translation_of} (now {original.body_hash}); "
                    f"bring it up to date, then run: masthead translation mark-current "
                    f"{post.source}",
                    "info",
                )
            )
    return out


def _card_fonts(site: Site, posts: list[Post]) -> list[ContentIssue]:
    """A warning for each language with posts that need a share card (no cover) but no font
    to draw it with (`content.cards`: none is made for that language)."""
    from masthead.config.load import CONFIG_FILE
    from masthead.content.cards import ShareCards

    settings = site.settings.share_cards
    if not settings.enabled:
        return []
    needed: dict[str, int] = {}
    for post in posts:
        if post.kind == "post" and not post.cover and not post.draft:
            needed[post.lang] = needed.get(post.lang, 0) + 1
    cards = ShareCards(site)
    out: list[ContentIssue] = []
    for code, count in sorted(needed.items()):
        if cards.fonts(code)[0] is not None:
            continue
        lang = site.languages[code]
        if code in settings.fonts:
            why = f"share_cards.fonts.{code}: {settings.fonts[code]} is not a file"
        else:
            why = (
                f"no font on this system has the characters of {lang.name} ({code}): install "
                f"one (Debian: apt-get install fonts-wqy-zenhei for Chinese) or set "
                f"share_cards.fonts.{code} to a font file"
            )
        reason = f"{why}; {count} post(s) in {code} without a cover get no share card"
        out.append(ContentIssue(CONFIG_FILE, 0, reason, "warning"))
    return out
