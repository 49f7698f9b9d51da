"""The font a share card of a language is drawn with: set in `masthead.toml`
(`[share_cards] fonts`), else found on the system by fontconfig.

fontconfig (`fc-match`, on every Linux desktop and server image with fonts) is asked for the
system's sans-serif for that language, and the font it gives is used only if fontconfig says
the font covers the language (its `lang` set): a Latin font is never used for a Chinese title,
where it would draw boxes. `fonts-wqy-zenhei` (Debian, Ubuntu) covers Chinese and Latin.
Without fontconfig, or with no font for the language, there is none: `masthead check` says
so and that language's posts get no card.
"""

from __future__ import annotations

import os
import shutil
import subprocess  # nosec B404 - fc-match, a fixed program with fixed arguments
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

FC_TIMEOUT = 10  # seconds: fc-match answers from its cache in milliseconds


@dataclass(frozen=True)
class FontFile:
    """A font file and the face in it (`index`, for a collection such as `.ttc`); `where`
    says how it was found (for `check`)."""

    path: Path
    index: int = 0
    where: str = "fontconfig"


def fc_lang(tag: str) -> str:
    """fontconfig's language name for a BCP 47 tag: `zh-Hans`/`zh-CN`/`zh` → `zh-cn`,
    `zh-Hant`/`zh-TW` → `zh-tw`, `zh-HK` → `zh-hk`, else the primary subtag (`en-GB` → `en`)."""
    parts = tag.replace("_", "-").lower().split("-")
    if parts[0] != "zh":
        return parts[0]
    rest = set(parts[1:])
    if rest & {"hant", "tw"}:
        return "zh-tw"
    if "hk" in rest or "mo" in rest:
        return "zh-hk"
    return "zh-cn"


def system_font(tag: str, bold: bool = False) -> FontFile | None:
    """The system's sans-serif font for language `tag` (BCP 47) by fontconfig, if it covers
    the language; None without fontconfig or such a font. Asked once per process and
    fontconfig configuration (`FONTCONFIG_FILE`)."""
    return _system_font(tag, bold, os.environ.get("FONTCONFIG_FILE", ""))


@lru_cache(maxsize=64)
def _system_font(tag: str, bold: bool, _config: str) -> FontFile | None:
    program = shutil.which("fc-match")
    if program is None:
        return None
    lang = fc_lang(tag)
    pattern = f"sans-serif:lang={lang}" + (":weight=bold" if bold else "")
    try:
        done = subprocess.run(  # nosec B603 - no shell, fixed arguments
            [program, "--format", "%{file}\\t%{index}\\t%{lang}\\n", pattern],
            capture_output=True,
            text=True,
            timeout=FC_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    fields = done.stdout.strip().split("\t")
    if done.returncode != 0 or len(fields) != 3:
        return None
    path, index, langs = fields
    if lang not in langs.split("|") or not path.lower().endswith((".ttf", ".otf", ".ttc")):
        return None
    return FontFile(Path(path), int(index or 0))


def font_for(code: str, tag: str, configured: dict[str, str], root: Path) -> FontFile | None:
    """The font for the site language `code` (BCP 47 `tag`): the file `configured[code]`
    (relative to the site folder `root`) when set, which must exist, else `system_font`."""
    if code in configured:
        path = root / configured[code]
        return FontFile(path, 0, "masthead.toml") if path.is_file() else None
    return system_font(tag)
