"""A site as the code sees it: its folder, its settings, its languages (`Site`, `Language`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from zoneinfo import ZoneInfo

from masthead.config.settings import Settings


@dataclass(frozen=True)
class Language:
    """A configured language, resolved: `prefix` is "" for the default language."""

    code: str
    name: str
    prefix: str
    hreflang: str
    folder: str | None
    locale: str
    aliases: frozenset[str]
    description: str = ""  # the language's own, else the site's (meta description of list pages)

    @property
    def root(self) -> str:
        """URL path of the language's home page: "/" or "/zh/"."""
        return f"/{self.prefix}/" if self.prefix else "/"


def _babel_locale(hreflang: str) -> str:
    tag = hreflang.replace("-", "_")
    if tag.lower() in ("zh", "zh_hans", "zh_cn"):
        return "zh_Hans_CN"
    if tag.lower() in ("zh_hant", "zh_tw"):
        return "zh_Hant_TW"
    return tag


@dataclass(frozen=True)
class Site:
    """A site folder and its validated settings."""

    root: Path
    settings: Settings

    @cached_property
    def languages(self) -> dict[str, Language]:
        out: dict[str, Language] = {}
        for code, ls in self.settings.languages.items():
            default = code == self.settings.default_language
            prefix = (ls.prefix if ls.prefix is not None else ("" if default else code)).strip("/")
            hreflang = ls.hreflang or code
            names = {code, hreflang, *(ls.aliases)}
            if ls.folder:
                names.add(ls.folder)
            out[code] = Language(
                code=code,
                name=ls.name,
                prefix=prefix,
                hreflang=hreflang,
                folder=ls.folder,
                locale=ls.locale or _babel_locale(hreflang),
                aliases=frozenset(n.lower().replace("_", "-") for n in names),
                description=ls.description or self.settings.description,
            )
        return out

    @property
    def replicated(self) -> bool:
        """Whether Litestream replicates the database (`[replica] url` is set): then masthead
        never checkpoints the WAL itself (store/db.py, `Database(checkpoints=False)`)."""
        return self.settings.replica.url is not None

    @property
    def default_language(self) -> Language:
        return self.languages[self.settings.default_language]

    @cached_property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.settings.timezone)

    @property
    def content_dir(self) -> Path:
        return self.root / self.settings.content_dir

    @property
    def database_path(self) -> Path:
        path = Path(self.settings.database)
        return path if path.is_absolute() else self.root / path

    def resolve_language(self, value: str) -> Language | None:
        """Map a code or alias (`zh`, `zh-cn`, `zh_CN`, `zh-Hans`) to a configured language.

        Exact codes and aliases win; then the primary subtag (`zh-TW` → `zh` when only `zh` exists).
        Returns None for a language the site does not have.
        """
        key = value.strip().lower().replace("_", "-")
        for lang in self.languages.values():
            if key == lang.code.lower() or key in lang.aliases:
                return lang
        primary = key.split("-")[0]
        matches = [
            lang for lang in self.languages.values() if lang.code.lower().split("-")[0] == primary
        ]
        return matches[0] if len(matches) == 1 else None
