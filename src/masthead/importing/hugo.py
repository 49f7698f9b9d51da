"""`masthead import hugo HUGO_DIR SITE`: a Hugo site made into a masthead site, as it is.

SITE gets `masthead.toml` from the Hugo configuration (`importing.hugo_config`: every setting it
could not carry over is listed with the reason), and Hugo's content and static folders, copied
(or, with `link`, linked: the Hugo site stays the one copy). Posts need no rewriting: masthead
reads Hugo's front matter (YAML, TOML, JSON), shortcodes, bundles and `static/` as they are.

Copying keeps every URL: a page at the top of Hugo's content folder (`about.md`,
`about/index.md`, served by Hugo at `/about/`) goes to `content/pages/`, where masthead serves
pages at the same URL; the posts of a section keep `/SECTION/NAME/` (the permalink setting).
A static file masthead makes itself (`robots.txt`, `_redirects`…) is not copied, and said so.
Then `masthead check` runs on the new site, and its errors and warnings are in the report.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from masthead.config import load_site
from masthead.content.discover import MARKDOWN_SUFFIXES, is_ignored
from masthead.errors import ConfigError, ContentIssue
from masthead.importing import hugo_config, toml_out
from masthead.importing.hugo_config import Converted
from masthead.indexing.check import check_site
from masthead.indexing.static_files import GENERATED, static_files

PAGES = "pages"


@dataclass
class HugoImport:
    """What an import did: the settings (`converted`: carried over and not), content files
    copied (`posts`), top-level pages moved to `pages/` (`pages`: old → new content path),
    static files copied, or not (`skipped`: path and why), warnings, and what `masthead check`
    says of the new site (`issues`)."""

    site: Path
    converted: Converted
    linked: bool = False
    posts: int = 0
    pages: list[tuple[str, str]] = field(default_factory=list)
    static: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    issues: list[ContentIssue] = field(default_factory=list)


def _is_markdown(name: str) -> bool:
    return name.lower().endswith(MARKDOWN_SUFFIXES)


def _is_section_page(name: str) -> bool:
    return name.lower().startswith("_index.")


def _top_pages(folder: Path) -> list[str]:
    """The names at the top of a content folder that Hugo serves as pages at `/NAME/`: a
    Markdown file (not `_index.md`) or a leaf bundle (a folder with an `index.md`)."""
    if not folder.is_dir():
        return []
    out = []
    for entry in sorted(folder.iterdir()):
        if is_ignored(entry.name) or entry.name == PAGES:
            continue
        if entry.is_file():
            page = _is_markdown(entry.name) and not _is_section_page(entry.name)
        else:
            page = any(_is_markdown(f.name) for f in entry.glob("index.*") if f.is_file())
        if page:
            out.append(entry.name)
    return out


def _sections(folders: list[Path]) -> list[str]:
    """The first folder of every post (one entry a post), for the busiest section."""
    out = []
    for folder in folders:
        pages = set(_top_pages(folder))
        for top, dirs, names in os.walk(folder):
            dirs[:] = [d for d in dirs if not is_ignored(d)]
            rel = Path(top).relative_to(folder).parts
            if not rel or rel[0] in pages:
                continue
            out += [rel[0] for n in names if _is_markdown(n) and not _is_section_page(n)]
    return out


def _kept(name: str) -> bool:
    """Whether a file or folder is copied: all but hidden ones (`.git/`) and editor backups;
    Hugo's `_index.md` too (masthead leaves it out, and `check` says so)."""
    return _is_section_page(name) or not is_ignored(name)


def _copy_tree(source: Path, dest: Path) -> int:
    """Copy `source` into `dest` (see `_kept`); the number of posts and pages copied."""
    count = 0
    for top, dirs, names in os.walk(source):
        dirs[:] = [d for d in dirs if _kept(d)]
        rel = Path(top).relative_to(source)
        for name in names:
            if not _kept(name):
                continue
            target = dest / rel / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(Path(top) / name, target)
            count += _is_markdown(name) and not _is_section_page(name)
    return count


def _content(result: HugoImport, source: Path, dest: Path, link: bool) -> None:
    """One content folder into the site: copied with its top-level pages under `pages/`, or
    linked as it is."""
    if not source.is_dir():
        result.warnings.append(f"{source}: no such content folder; nothing taken from it")
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    pages = _top_pages(source)
    if link:
        dest.symlink_to(source.resolve(), target_is_directory=True)
        result.posts += sum(
            1
            for _t, _d, names in os.walk(source)
            for n in names
            if _is_markdown(n) and not _is_section_page(n)
        )
        if pages:
            result.warnings.append(
                f"{len(pages)} top-level pages ({', '.join(pages[:3])}…) are posts in masthead "
                f"when linked: move them into {source.name}/{PAGES}/ to keep them pages"
            )
        return
    result.posts += _copy_tree(source, dest)
    for name in pages:
        moved_from = dest / name
        moved_to = dest / PAGES / name
        moved_to.parent.mkdir(parents=True, exist_ok=True)
        if moved_to.exists():
            result.warnings.append(f"{name}: {PAGES}/{name} exists already; left where it was")
            continue
        moved_from.rename(moved_to)
        result.pages.append((f"{source.name}/{name}", f"{dest.name}/{PAGES}/{name}"))


def _nested(result: HugoImport, source: Path, prefix: str) -> None:
    """A warning for each post Hugo served under nested section folders (`posts/2020/x.md` at
    `/posts/2020/x/`): with Hugo's default URLs masthead keeps the first folder only
    (`/posts/x/`), so its old URL needs an `aliases` line."""
    pages = set(_top_pages(source))
    for top, dirs, names in os.walk(source):
        dirs[:] = sorted(d for d in dirs if not is_ignored(d))
        folders = Path(top).relative_to(source).parts
        if not folders or folders[0] in pages:
            continue
        for name in sorted(names):
            if not _is_markdown(name) or _is_section_page(name):
                continue
            sections = folders[:-1] if name.split(".")[0] == "index" else folders
            if len(sections) > 1:
                old = "/".join((prefix, *sections)).strip("/")
                result.warnings.append(
                    f"{source.name}/{'/'.join(folders)}/{name}: Hugo served it under /{old}/, "
                    f"masthead under /{'/'.join((prefix, sections[0])).strip('/')}/; add its old "
                    "URL to its aliases"
                )


def _static(result: HugoImport, source: Path | None, dest: Path, link: bool) -> None:
    if source is None or not source.is_dir():
        return
    files = list(static_files(source))
    clashing = [rel for rel in files if rel in GENERATED or _sitemap_part(rel)]
    if link:
        dest.symlink_to(source.resolve(), target_is_directory=True)
        result.static = len(files)
        result.skipped += [
            (f"static/{rel}", "linked: masthead check reports it") for rel in clashing
        ]
        return
    for rel in files:
        if rel in clashing:
            what = GENERATED.get(rel, "a part of masthead's sitemap")
            result.skipped.append((f"static/{rel}", f"not copied: /{rel} is {what}"))
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / rel, target)
        result.static += 1


def _sitemap_part(rel: str) -> bool:
    return rel.startswith("sitemap") and rel.endswith(".xml") and "/" not in rel


def settings_text(converted: Converted) -> str:
    """`masthead.toml` for the converted settings, with a header saying where they came from
    and what was not carried over."""
    head = [
        f"# Made by masthead import hugo from {', '.join(converted.source)}.",
    ]
    if converted.dropped:
        head.append("# Not carried over:")
        head += [f"#   {name}: {why}" for name, why in converted.dropped]
    data = dict(converted.settings)
    return "\n".join([*head, "", *toml_out.table("", data)]).strip() + "\n"


def import_hugo(hugo_dir: Path, site_dir: Path, *, link: bool = False) -> HugoImport:
    """Make the masthead site `site_dir` (absent or empty) from the Hugo site at `hugo_dir`.
    Raises ConfigError when `hugo_dir` is no Hugo site or `site_dir` is not empty."""
    if not hugo_dir.is_dir():
        raise ConfigError(f"{hugo_dir}: no such folder")
    if site_dir.exists() and (not site_dir.is_dir() or any(site_dir.iterdir())):
        raise ConfigError(f"{site_dir}: must be an empty or new folder (nothing is overwritten)")
    config, _ = hugo_config.read(hugo_dir)  # raises first when it is no Hugo site
    del config
    probe = hugo_config.settings(hugo_dir)
    converted = hugo_config.settings(hugo_dir, _sections(list(probe.content.values())))
    site_dir.mkdir(parents=True, exist_ok=True)
    result = HugoImport(site=site_dir, converted=converted, linked=link)
    (site_dir / "masthead.toml").write_text(settings_text(converted), encoding="utf-8")
    languages = converted.settings["languages"]
    default_urls = converted.settings.get("permalinks", {}).get("posts") == hugo_config.DEFAULT
    for code, source in converted.content.items():
        folder = languages.get(code, {}).get("folder", "") if code else ""
        dest = site_dir / "content" / folder if folder else site_dir / "content"
        _content(result, source, dest, link)
        if default_urls:
            prefix = languages.get(code, {}).get("prefix", "") if code else ""
            _nested(result, source, prefix)
    _static(result, converted.static, site_dir / "static", link)
    result.issues = [i for i in check_site(load_site(site_dir)) if i.severity != "info"]
    return result
