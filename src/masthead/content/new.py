"""`masthead new SITE "Title"`: start a post as `hugo new` does, a draft file with front matter.

The file goes where the site's layout puts a post of that language: `content/posts/SLUG.md` for
the default language, `content/posts/SLUG.LANG.md` for another, or `content/FOLDER/posts/SLUG.md`
when the language has a content folder (Hugo's layout). A translation (`--translation-of PATH`)
takes the original's base name instead (the same path under the language's folder or with its
suffix, `NAME/index.LANG.md` for a page bundle), and both files get one `translationKey` (the
original's, else its translation base, e.g. `posts/harbour`, written into the original, and into
the translations it already has by that base name, as one more front-matter line, nothing else
of the files changed), so the set stays linked, comments and all, when a file is renamed later.
The translation also gets `translation_of`, the hash of the original's body now
(content/translations.py): when the original changes after this, the translation is behind.
"""

from __future__ import annotations

import codecs
import itertools
import json
import os
import re
import tempfile
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from masthead.config import Language, Site
from masthead.content import frontmatter, source
from masthead.content.discover import MARKDOWN_SUFFIXES, classify, walk
from masthead.content.linebreak import han_words
from masthead.content.translations import body_hash
from masthead.errors import ContentError, MastheadError

SLUG_LIMIT = 80  # characters; longer titles are cut at a word
UNTITLED = "untitled"  # the slug of a title with no words; numbered when taken (`untitled-2`)
_WORD = re.compile(r"\w+")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


class NewPostError(MastheadError):
    """The post cannot be created: the file exists, an unknown language, a bad original."""


def slugify(title: str) -> str:
    """A URL slug for `title`: its words lower-cased and joined by `-` (`Hello, World!` →
    `hello-world`); Chinese text is cut into words by rjieba (`长文阅读的排版` →
    `长文-阅读-的-排版`), kept as written (IRIs, as Hugo keeps them). At most `SLUG_LIMIT`
    characters, cut at a word; `UNTITLED` when no word is left."""
    text = unicodedata.normalize("NFKC", title).casefold()
    words: list[str] = []
    for token in han_words(text) if _CJK.search(text) else [text]:
        words += _WORD.findall(token)
    slug = ""
    for word in (w.strip("_") for w in words):
        if not word:
            continue
        longer = f"{slug}-{word}" if slug else word
        if len(longer) > SLUG_LIMIT:
            break
        slug = longer
    return slug or UNTITLED


@dataclass(frozen=True)
class Rewrite:
    """An existing content file given a `translationKey`: absolute `path`, its bytes as read
    (`was`) and as they are to be written (`now`)."""

    path: Path
    was: bytes
    now: bytes


@dataclass(frozen=True)
class NewPost:
    """A file to create: `path` (absolute) with `text`; and, for a translation of an original
    without a `translationKey`, the original and the translations it has by its base name, each
    given the key (`rewrites`)."""

    path: Path
    text: str
    rewrites: tuple[Rewrite, ...] = ()


def plan(
    site: Site,
    title: str,
    now: datetime,
    lang_code: str | None = None,
    translation_of: Path | None = None,
) -> NewPost:
    """The file a new draft titled `title`, dated `now` (aware; written in the site zone),
    would be, in language `lang_code` (a code or alias; default: the site's), optionally a
    translation of the content file `translation_of` (or of the page bundle folder holding it,
    see `_bundle_index`). Raises NewPostError."""
    lang = site.default_language
    if lang_code:
        found = site.resolve_language(lang_code)
        if found is None:
            known = ", ".join(site.languages)
            raise NewPostError(f"unknown language {lang_code!r} (the site has {known})")
        lang = found
    title = " ".join(title.split())
    if not title:
        raise NewPostError("the title is empty")
    lines = [f"title: {json.dumps(title, ensure_ascii=False)}"]
    lines.append(f"date: {now.astimezone(site.tz).replace(microsecond=0).isoformat()}")
    if lang_code:
        lines.append(f"lang: {lang.code}")
    original = None
    if translation_of is not None:
        original = _original(site, translation_of, lang)
        where = _translation_path(site, original.base, lang, original.bundle)
        lines.append(_key_line(original.key or original.base, "\n").rstrip("\n"))
        lines.append(f'translation_of: "{original.digest}"')  # made from it now
    else:
        slug = slugify(title)
        where = _post_path(lang, slug) if slug != UNTITLED else _untitled_path(site, lang)
    lines.append("draft: true")
    text = "---\n" + "\n".join(lines) + "\n---\n\n"
    if original is None or original.key:
        return NewPost(site.content_dir / where, text)
    rewrites = tuple(
        Rewrite(path, raw, _with_key(path, raw, original.base))
        for path, raw in _linked_by_name(site, original)
    )
    return NewPost(site.content_dir / where, text, rewrites)


def _linked_by_name(site: Site, original: _Original) -> list[tuple[Path, bytes]]:
    """The original (absolute path, bytes) and every other content file of its translation
    base without a `translationKey` of its own: the posts its derived key joins today, so that
    giving them all the key keeps them together. Raises NewPostError for one whose front
    matter does not parse (whether it has a key cannot be told)."""
    out = [(original.path, original.raw)]
    for rel in walk(site.content_dir):
        path = site.content_dir / rel
        if path.resolve() == original.path or classify(site, rel).base != original.base:
            continue
        shown = site.settings.content_dir + "/" + rel
        raw = path.read_bytes()
        try:
            data = frontmatter.split(shown, source.decode(shown, raw)).data
        except ContentError as exc:
            raise NewPostError(
                f"{exc} (a translation of the original by its file name: fix it first; "
                "nothing was written)"
            ) from None
        if not data.get("translationKey"):
            if "translationKey" in data:
                raise NewPostError(
                    f"{shown}: its translationKey is empty; give it one or remove it"
                )
            out.append((path, raw))
    return out


def _key_line(key: str, newline: str) -> str:
    return f"translationKey: {json.dumps(key, ensure_ascii=False)}{newline}"


_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n|$)")
_CLOSE = re.compile(rb"(?:---|\.\.\.)[ \t]*")  # frontmatter._DELIM, on bytes


def _with_key(path: Path, raw: bytes, key: str) -> bytes:
    """`raw` (an original whose front matter parsed, `frontmatter.split`) with one line
    `translationKey: "key"` added just before the line that closes its front matter, ended as
    the file's first line is (LF, CRLF or CR); every other byte (a UTF-8 byte-order mark too)
    kept. Raises NewPostError when the closing line cannot be found."""
    start = len(codecs.BOM_UTF8) if raw.startswith(codecs.BOM_UTF8) else 0
    lines = [m for m in _LINE.finditer(raw, start) if m.group()]
    first = lines[0].group() if lines else b""
    newline = first[len(first.rstrip(b"\r\n")) :] or b"\n"
    for match in lines[1:]:
        if _CLOSE.fullmatch(match.group().rstrip(b"\r\n")):
            at = match.start()
            return raw[:at] + _key_line(key, newline.decode()).encode() + raw[at:]
    raise NewPostError(f"{path}: the end of its front matter was not found; not changed")


def _untitled_path(site: Site, lang: Language) -> str:
    """Where a post whose title has no words ("!!!") goes: `UNTITLED`, else the first of
    `untitled-2`, `untitled-3`… with neither a file nor a page bundle folder of that name."""
    for number in itertools.count(1):
        where = _post_path(lang, UNTITLED if number == 1 else f"{UNTITLED}-{number}")
        path = site.content_dir / where
        if not path.exists() and not path.with_name(path.name.split(".", 1)[0]).exists():
            return where
    raise AssertionError("unreachable")  # pragma: no cover - itertools.count never ends


def _post_path(lang: Language, slug: str) -> str:
    if lang.folder:
        return f"{lang.folder}/posts/{slug}.md"
    if lang.prefix:  # not the default language
        return f"posts/{slug}.{lang.code}.md"
    return f"posts/{slug}.md"


@dataclass(frozen=True)
class _Original:
    """The post a translation is made of: its absolute `path` and bytes `raw`, content-relative
    translation `base`, `translationKey` ("" for none) and whether it is a page bundle."""

    path: Path
    raw: bytes
    base: str
    key: str
    bundle: bool
    digest: str = ""  # content.translations.body_hash of its body


def _original(site: Site, path: Path, lang: Language) -> _Original:
    """The original of a translation into `lang`. Raises NewPostError: no such Markdown file
    in the content folder, front matter that does not parse (the message says where), an
    empty `translationKey`, or an original already in `lang`."""
    content = site.content_dir.resolve()
    candidates = [path, site.root / path, site.content_dir / path]
    found = next((p.resolve() for p in candidates if p.exists()), None)
    if found is not None and found.is_dir():
        found = _bundle_index(path, found)
    if found is None or not found.is_file():
        raise NewPostError(f"{path}: no such file")
    if not found.is_relative_to(content) or not found.name.lower().endswith(MARKDOWN_SUFFIXES):
        raise NewPostError(f"{path}: not a Markdown file in {site.content_dir}")
    rel = found.relative_to(content).as_posix()
    info = classify(site, rel)
    shown = site.settings.content_dir + "/" + rel
    raw = found.read_bytes()
    try:
        split = frontmatter.split(shown, source.decode(shown, raw))
    except ContentError as exc:
        raise NewPostError(f"{exc} (fix the original first; nothing was written)") from None
    data = split.data
    if "translationKey" in data and not data["translationKey"]:
        raise NewPostError(f"{shown}: its translationKey is empty; give it one or remove it")
    written = site.resolve_language(str(data.get("lang") or "")) if data.get("lang") else None
    original_lang = written.code if written else (info.lang or site.settings.default_language)
    if original_lang == lang.code:
        raise NewPostError(f"{path} is already in {lang.name}; give another --lang")
    stem = found.name.rsplit(".", 1)[0].split(".", 1)[0]
    key = str(data.get("translationKey") or "")
    return _Original(found, raw, info.base, key, stem == "index", body_hash(split.body))


def _bundle_index(given: Path, folder: Path) -> Path:
    """The original in the page bundle `folder` (Hugo's leaf bundle, `NAME/index.md`): its
    `index.md` (no language suffix), else its only `index.LANG.md`. Raises NewPostError for a
    folder with no index file, or with several and none unsuffixed (which one is ambiguous)."""
    found = sorted(
        p
        for p in folder.iterdir()
        if p.is_file()
        and p.name.lower().startswith("index.")
        and p.name.lower().endswith(MARKDOWN_SUFFIXES)
    )
    plain = [p for p in found if p.name.count(".") == 1]  # index.md: no language suffix
    if plain:
        return plain[0]
    if len(found) == 1:
        return found[0]
    if not found:
        raise NewPostError(f"{given}: a folder without an index.md (not a page bundle)")
    names = ", ".join(p.name for p in found)
    raise NewPostError(f"{given}: a page bundle with several originals ({names}); give one")


def _translation_path(site: Site, base: str, lang: Language, bundle: bool) -> str:
    """Where the translation of the post with translation base `base` goes in `lang`."""
    if lang.folder:
        return f"{lang.folder}/{base}/index.md" if bundle else f"{lang.folder}/{base}.md"
    suffix = f".{lang.code}" if lang.prefix else ""
    return f"{base}/index{suffix}.md" if bundle else f"{base}{suffix}.md"


def create(post: NewPost) -> Path:
    """Write `post` (its folders too); never over an existing file; then give the files of
    `post.rewrites` the `translationKey` they lacked, unless one changed since it was read:
    then none is changed and the new file is removed again. Raises NewPostError."""
    post.path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(post.path, "x", encoding="utf-8", newline="\n") as file:
            file.write(post.text)
    except FileExistsError:
        raise NewPostError(f"{post.path} exists already; not overwritten") from None
    done: list[Rewrite] = []
    try:
        for rewrite in post.rewrites:
            if rewrite.path.read_bytes() != rewrite.was:
                raise NewPostError(f"{rewrite.path} changed meanwhile; nothing was written")
        for rewrite in post.rewrites:
            _replace(rewrite.path, rewrite.now)
            done.append(rewrite)
    except BaseException:
        for rewrite in done:  # all or none: put back the ones already written
            _replace(rewrite.path, rewrite.was)
        post.path.unlink(missing_ok=True)
        raise
    return post.path


def _replace(path: Path, data: bytes) -> None:
    """Replace the file at `path` by `data` in one rename (an editor or the watcher never reads
    half of it), its permission bits kept."""
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.chmod(name, path.stat().st_mode & 0o7777)
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
