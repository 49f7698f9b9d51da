"""A Hugo site's configuration read and turned into masthead's settings.

Hugo reads `hugo.toml`, `hugo.yaml`, `hugo.json` (or their older `config.*` names) at the root
of the site, and the folder `config/_default/`, where a file is either the whole configuration
(`hugo.toml`) or one of its keys (`languages.toml`, `menus.en.toml`, `params.yaml`…)
(https://gohugo.io/configuration/introduction/). Keys are case-insensitive. `settings` maps
what masthead has a setting for (title, baseURL, languages with their content folders and
prefixes, permalinks, taxonomies, menus, pagination, time zone, params) and says, for each other
setting, why it is not carried over.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import yaml

from masthead.config.permalinks import validate_permalink
from masthead.errors import ConfigError

NAMES = ("hugo", "config")
DEFAULT = "/:section/:slugorcontentbasename/"  # Hugo's default URLs as a masthead pattern
SUFFIXES = (".toml", ".yaml", ".yml", ".json")
# Hugo's default taxonomies; masthead has these two
TAXONOMIES = {"tag": "tags", "category": "categories"}

# settings with no counterpart, and why (the keys lower-cased, as Hugo reads them)
WHY_NOT = {
    "theme": "masthead draws its own theme; a templates/ folder overrides its templates",
    "themesdir": "masthead draws its own theme",
    "summarylength": "masthead's excerpt is the summary, the text before <!--more-->, or the "
    "first paragraph (up to 200 characters)",
    "markup": "masthead renders Markdown and highlights code its own way (CommonMark, Pygments)",
    "outputs": "masthead makes its pages, RSS and Atom feeds and sitemaps itself",
    "outputformats": "masthead makes its pages, RSS and Atom feeds and sitemaps itself",
    "mediatypes": "masthead makes its pages, RSS and Atom feeds and sitemaps itself",
    "disqusshortname": "import the comments with masthead comments import (a Disqus export)",
    "googleanalytics": "masthead pages load no third-party script",
    "services": "masthead pages load no third-party script",
    "privacy": "masthead pages load no third-party script or frame",
    "copyright": "no such setting; write it in a template override (templates/)",
    "enablerobotstxt": "masthead always serves /robots.txt (robots_disallow, robots_extra)",
    "uglyurls": "masthead's URLs end with a slash; add aliases for the old .html URLs",
    "canonifyurls": "masthead writes absolute URLs where they are needed (feeds, sitemaps)",
    "relativeurls": "masthead writes absolute URLs where they are needed (feeds, sitemaps)",
    "hascjklanguage": "masthead counts Chinese, Japanese and Korean words on every site",
    "languagecode": "carried as the default language's hreflang",
}
# Hugo's build machinery: nothing to carry
BUILD = {
    "build", "builddrafts", "buildfuture", "buildexpired", "caches", "cascade",
    "cleandestinationdir", "contenttypes", "deployment", "disablekinds", "disablealiases",
    "disablehugogeneratorinject",
    "disablelanguages", "disablepathtolower", "enableemoji", "enablegitinfo", "frontmatter",
    "ignorefiles", "imaging", "minify", "module", "publishdir", "related", "security", "segments",
    "server", "sitemap", "assetdir", "archetypedir", "datadir", "i18ndir", "layoutdir",
    "resourcedir", "workingdir", "timeout", "titlecasestyle", "pluralizelisttitles",
    "removepathaccents", "enableinlineshortcodes", "capitalizelisttitles", "newcontenteditor",
    "reflinkserrorlevel", "reflinksnotfoundurl", "ignorelogs", "printi18nwarnings",
    "printpathwarnings", "printunusedtemplates", "enablemissingtranslationplaceholders",
    "mainsections", "paginatepath", "defaultcontentlanguageinsubdir", "contentdir", "staticdir",
}  # fmt: skip
CARRIED = {
    "title", "baseurl", "defaultcontentlanguage", "timezone", "languages", "permalinks",
    "taxonomies", "menus", "menu", "paginate", "pagination", "params", "description",
}  # fmt: skip


@dataclass
class Converted:
    """masthead's settings (`settings`, as `masthead.toml` holds them), what was carried over
    (`carried`: one line each), what was not (`dropped`: setting and why), where each
    language's content is in the Hugo site (`content`: language code → folder, "" for a site
    with one content folder), the Hugo static folder and the comments for the settings file."""

    settings: dict[str, Any] = field(default_factory=dict)
    carried: list[str] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)
    content: dict[str, Path] = field(default_factory=dict)
    static: Path | None = None
    source: list[str] = field(default_factory=list)


def _lower(data: Any) -> Any:
    """`data` with every table's keys lower-cased (Hugo's keys are case-insensitive), except
    under `params`, whose keys templates read as written."""
    if isinstance(data, dict):
        return {
            str(k).lower(): (v if str(k).lower() == "params" else _lower(v))
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [_lower(v) for v in data]
    return data


def _parse(path: Path) -> Any:
    text = path.read_text(encoding="utf-8-sig")
    try:
        if path.suffix == ".toml":
            return tomllib.loads(text)
        if path.suffix == ".json":
            return json.loads(text)
        return yaml.safe_load(text) or {}
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: not valid {path.suffix[1:].upper()}: {exc}") from None


def _merge(into: dict[str, Any], more: dict[str, Any]) -> None:
    for k, v in more.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            _merge(into[k], v)
        else:
            into[k] = v


def read(hugo_dir: Path) -> tuple[dict[str, Any], list[str]]:
    """The merged configuration of the Hugo site at `hugo_dir` (keys lower-cased) and the files
    it was read from. Raises ConfigError when there is none or one cannot be parsed."""
    config: dict[str, Any] = {}
    sources: list[str] = []
    folder = hugo_dir / "config" / "_default"
    if folder.is_dir():
        for path in sorted(folder.iterdir()):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            stem = path.stem.lower()
            data = _parse(path) if stem == "params" else _lower(_parse(path))
            if stem in NAMES:
                _merge(config, data)
            elif "." in stem:  # menus.en.toml: the menus of one language
                name, lang = stem.split(".", 1)
                _merge(config, {"languages": {lang: {name: data}}})
            else:
                _merge(config, {stem: data})
            sources.append(str(path.relative_to(hugo_dir)))
    for name in NAMES:
        found = [hugo_dir / f"{name}{s}" for s in SUFFIXES if (hugo_dir / f"{name}{s}").is_file()]
        if found:
            _merge(config, _lower(_parse(found[0])))  # the root file wins over config/_default
            sources.append(found[0].name)
            break
    if not sources:
        raise ConfigError(
            f"{hugo_dir}: no Hugo configuration (hugo.toml, config.toml, config.yaml, "
            "config/_default/…); is this a Hugo site?"
        )
    return config, sources


def bcp47(tag: str) -> str:
    """A language code as BCP 47 writes it, which hreflang wants: Hugo's `zh-cn` is `zh-CN`,
    `zh-hans` is `zh-Hans`, `en_us` is `en-US`."""
    parts = tag.replace("_", "-").split("-")
    out = [parts[0].lower()]
    for part in parts[1:]:
        if len(part) == 4 and part.isalpha():
            out.append(part.title())
        elif len(part) == 2 or (len(part) == 3 and part.isdigit()):
            out.append(part.upper())
        else:
            out.append(part.lower())
    return "-".join(out)


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _languages(config: dict[str, Any], hugo_dir: Path, out: Converted) -> str:
    """The `[languages]` tables and each language's content folder; the default language."""
    default = (_text(config.get("defaultcontentlanguage")) or "en").lower()
    languages = config.get("languages") or {}
    content_root = hugo_dir / (_text(config.get("contentdir")) or "content")
    subdir = config.get("defaultcontentlanguageinsubdir") is True
    if not isinstance(languages, dict) or not languages:
        languages = {default: {}}
    tables: dict[str, dict[str, Any]] = {}
    ordered = sorted(languages.items(), key=lambda kv: (_weight(kv[1]), kv[0]))
    for code, lang in ordered:
        code = code.lower()
        lang = lang if isinstance(lang, dict) else {}
        name = _text(lang.get("languagename")) or _text(lang.get("label")) or code
        table: dict[str, Any] = {"name": name}
        if code != default or subdir:
            table["prefix"] = code
        hreflang = _text(lang.get("languagecode")) or (
            _text(config.get("languagecode")) if code == default else None
        )
        if hreflang and hreflang.lower() != code:
            table["hreflang"] = bcp47(hreflang)
            table["aliases"] = [hreflang.lower()]
        own = _text(lang.get("contentdir"))
        if own:
            folder = hugo_dir / own
            out.content[code] = folder
            table["folder"] = folder.name if folder.parent == content_root else code
        description = _text(lang.get("description")) or _text(
            (lang.get("params") or {}).get("description")
            if isinstance(lang.get("params"), dict)
            else None
        )
        if description:
            table["description"] = description
        for key in sorted(
            set(lang)
            - {
                "languagename",
                "label",
                "languagecode",
                "contentdir",
                "weight",
                "description",
                "menus",
                "menu",
                "params",
                "title",
                "disabled",
                "languagedirection",
                "direction",
            }
        ):
            out.dropped.append((f"languages.{code}.{key}", "no such setting for a language"))
        if _text(lang.get("title")) and lang.get("title") != config.get("title"):
            out.dropped.append(
                (f"languages.{code}.title", "masthead has one site title for every language")
            )
        if lang.get("disabled") is True:
            out.dropped.append((f"languages.{code}", "disabled in Hugo: left out"))
            continue
        tables[code] = table
    if default not in tables:
        tables = {default: {"name": default}, **tables}
    if not out.content:
        out.content[""] = content_root
    out.settings["languages"] = tables
    out.carried.append(
        "languages: "
        + ", ".join(f"{c} ({t['name']}, /{t.get('prefix', '')})" for c, t in tables.items())
    )
    return default


def _weight(lang: Any) -> int:
    weight = lang.get("weight", 0) if isinstance(lang, dict) else 0
    return weight if isinstance(weight, int) else 0


def _permalinks(config: dict[str, Any], sections: list[str], out: Converted) -> None:
    """Hugo's per-section patterns as masthead's posts and pages patterns. Hugo's default,
    `/SECTION/NAME/`, is `/:section/:slugorcontentbasename/`."""
    raw = config.get("permalinks") or {}
    if isinstance(raw.get("page"), dict):  # Hugo 0.120's [permalinks.page]
        raw = raw["page"]
    patterns = {str(k).lower(): str(v) for k, v in raw.items() if isinstance(v, str)}
    main = max(sections, key=sections.count) if sections else "posts"
    posts = patterns.get(main) or patterns.get("posts") or patterns.get("post")
    if posts:
        posts = posts if posts.endswith("/") else posts + "/"
        posts = posts.replace(":filename", ":contentbasename").replace(":sections", ":section")
        try:
            validate_permalink(posts if posts.startswith("/") else "/" + posts)
            out.settings.setdefault("permalinks", {})["posts"] = "/" + posts.lstrip("/")
            out.carried.append(f"permalinks: posts {out.settings['permalinks']['posts']}")
        except ValueError as exc:
            out.dropped.append((f"permalinks.{main}", str(exc)))
    else:
        out.settings.setdefault("permalinks", {})["posts"] = DEFAULT
        out.carried.append(
            "permalinks: posts /:section/:slugorcontentbasename/ (Hugo's default URLs)"
        )
    for section, pattern in patterns.items():
        if pattern != patterns.get(main) and section not in ("posts", "post", main):
            out.dropped.append(
                (
                    f"permalinks.{section}",
                    f"masthead has one pattern for posts: the {section} section's posts are at "
                    f"{out.settings['permalinks']['posts']}; add aliases for their old URLs",
                )
            )


def _menus(config: dict[str, Any], default: str, out: Converted) -> None:
    menus: dict[str, list[dict[str, Any]]] = {}
    found = {default: config.get("menus") or config.get("menu") or {}}
    for code, lang in (config.get("languages") or {}).items():
        if isinstance(lang, dict) and (lang.get("menus") or lang.get("menu")):
            found[code.lower()] = lang.get("menus") or lang.get("menu")
    for code, named in found.items():
        if not isinstance(named, dict):
            continue
        for name, entries in named.items():
            if name != "main":
                out.dropped.append((f"menus.{name}", "masthead draws one menu, main"))
                continue
            for entry in entries if isinstance(entries, list) else []:
                title = _text(entry.get("name")) or _text(entry.get("title"))
                url = _text(entry.get("url")) or _text(entry.get("pageref"))
                if not title or not url:
                    out.dropped.append((f"menus.main: {entry}", "an entry needs a name and a URL"))
                    continue
                if entry.get("parent"):
                    out.dropped.append(
                        (f"menus.main: {title}", "menus are flat: shown at the top level")
                    )
                if not url.startswith(("http://", "https://", "/")):
                    url = "/" + url
                if (
                    url.startswith("/")
                    and not url.endswith("/")
                    and "." not in url.rsplit("/", 1)[-1]
                ):
                    url += "/"
                item: dict[str, Any] = {"title": title, "url": url}
                if isinstance(entry.get("weight"), int):
                    item["weight"] = entry["weight"]
                menus.setdefault(code, []).append(item)
    if menus:
        out.settings["menu"] = menus
        out.carried.append(
            "menus: " + ", ".join(f"{code} ({len(items)} links)" for code, items in menus.items())
        )


def settings(hugo_dir: Path, sections: list[str] | None = None) -> Converted:
    """masthead's settings for the Hugo site at `hugo_dir`, and what could not be carried.
    `sections` are the first folders of its posts (for permalinks: the busiest section's)."""
    config, sources = read(hugo_dir)
    out = Converted(source=sources)
    title = _text(config.get("title"))
    if title:
        out.settings["title"] = title
        out.carried.append(f"title: {title}")
    base = _text(config.get("baseurl"))
    if base and base.startswith(("http://", "https://")):
        out.settings["base_url"] = base.rstrip("/")
        out.carried.append(f"base_url: {out.settings['base_url']}")
    elif base:
        out.dropped.append(("baseURL", f"{base!r} is not an absolute http(s) URL"))
    params: dict[str, Any] = config.get("params") or {}
    if not isinstance(params, dict):
        params = {}
    description = _text(config.get("description")) or _text(params.get("description"))
    if description:
        out.settings["description"] = description
        out.carried.append("description")
    zone = _text(config.get("timezone"))
    if zone:
        try:
            ZoneInfo(zone)
            out.settings["timezone"] = zone
            out.carried.append(f"timezone: {zone}")
        except (ZoneInfoNotFoundError, ValueError):
            out.dropped.append(("timeZone", f"{zone!r} is not an IANA time zone"))
    default = _languages(config, hugo_dir, out)
    out.settings["default_language"] = default
    pager = config.get("pagination")
    size = pager.get("pagersize") if isinstance(pager, dict) else config.get("paginate")
    if isinstance(size, int) and 1 <= size <= 100:
        out.settings["posts_per_page"] = size
        out.carried.append(f"posts_per_page: {size}")
    elif size is not None:
        out.dropped.append(("pagination.pagerSize", f"{size!r}: masthead shows 1 to 100 a page"))
    _permalinks(config, sections or [], out)
    _taxonomies(config, out)
    _menus(config, default, out)
    if params:
        out.settings["params"] = params
        out.carried.append(f"params: {len(params)} keys (the param shortcode reads them)")
    out.static = hugo_dir / (_text(config.get("staticdir")) or "static")
    for key in sorted(config):
        if key in CARRIED or key in BUILD:
            continue
        out.dropped.append((key, WHY_NOT.get(key, "no such setting in masthead")))
    return out


def _taxonomies(config: dict[str, Any], out: Converted) -> None:
    taxonomies = config.get("taxonomies")
    if not isinstance(taxonomies, dict):
        return
    for singular, plural in taxonomies.items():
        if TAXONOMIES.get(singular) != plural:
            out.dropped.append(
                (
                    f"taxonomies.{singular}",
                    f"masthead has tags and categories; front matter {plural!r} is kept for "
                    "templates but gets no pages",
                )
            )
    for singular in TAXONOMIES:
        if singular not in taxonomies:
            out.dropped.append(
                (f"taxonomies.{singular}", "turned off in Hugo; masthead always has it")
            )
