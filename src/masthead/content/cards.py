"""Share cards: the 1200×630 image a shared link shows (`og:image`) for a post without a cover.

A card shows the post's title (wrapped by `content.linebreak`, which keeps Chinese punctuation
where it belongs), the site's name, and a line with the authors, the date and the reading time
the post's page shows, in the post's language, in the `[share_cards]` colours (the site's own
by default), with a font that has the language's characters (`content.fonts`). A language
without such a font gets no card (and `masthead check` says so): a card of empty boxes would be
worse than none.

Cards are made when a post is indexed (`indexing.indexer.build_change`: an edit, a new post)
and otherwise when its page is first rendered (a first index of many files leaves them to
that: drawing a card costs several times what parsing the post does), or when the file is
missing. Each is a PNG named by the
SHA-256 of everything drawn on it (text, colours, font file, `VERSION` of this layout) in the
`cards/` folder beside the database, served at `/cards/NAME.png` with a year-long `immutable`
Cache-Control, like cover thumbnails: a name always means the same bytes, and a post whose
title changes gets a new name.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageChops, ImageDraw, ImageFont

from masthead.config import ShareCardSettings, Site
from masthead.content import authors as people
from masthead.content.fonts import FontFile, font_for, system_font
from masthead.content.linebreak import wrap
from masthead.i18n import gettext, long_date

log = logging.getLogger(__name__)
WIDTH, HEIGHT = 1200, 630  # the size Open Graph consumers crop least (1.91:1)
VERSION = 3  # of the layout and encoding below: a new one gives every card a new name
MARGIN = 80
TITLE_SIZES = (68, 60, 52, 46)  # the largest that fits in TITLE_LINES lines is used
TITLE_LINES = 4
META_SIZE = 30
SITE_SIZE = 32
URL_PREFIX = "/cards/"
CARD_CACHE = "public, max-age=31536000, immutable"  # names are content hashes
TYPES = {".png": "image/png"}  # what /cards/ serves


@dataclass(frozen=True)
class CardText:
    """What a card says: `lang` the site language code (its font), `title`, `site` (the site's
    name), `meta` (authors · date · reading time); `alt` the image's text alternative."""

    lang: str
    title: str
    site: str
    meta: str

    @property
    def alt(self) -> str:
        return f"{self.title} — {self.site}"


@dataclass(frozen=True)
class Card:
    """A made card: its URL path, size and text alternative."""

    url: str
    width: int
    height: int
    alt: str


def folder_for(database: Path) -> Path:
    """The card folder of the site whose database file is `database`: `cards/` beside it
    (derived data: deleting it costs drawing each card again)."""
    return database.parent / "cards"


def card_text(
    site: Site, lang: str, title: str, date: datetime, names: Sequence[str], minutes: int
) -> CardText:
    """The text of the card of a post in site language `lang` with these `title`, `date`,
    authors (`names`, as written in front matter) and reading time (`minutes`, the figure its
    page shows)."""
    language = site.languages.get(lang, site.default_language)
    locale = language.locale
    who = ", ".join(a.name for a in people.authors(list(names)))
    parts = [who, long_date(date, locale), gettext(locale, "minutes_read", n=minutes)]
    return CardText(language.code, title, site.settings.title, " · ".join(p for p in parts if p))


FontsFor = Callable[[str], tuple[FontFile | None, FontFile | None]]


class ShareCards:
    """The share cards of one site, written to `folder`: `card(text)` makes one if needed."""

    def __init__(self, site: Site, folder: Path | None = None) -> None:
        self.site = site
        self.settings: ShareCardSettings = site.settings.share_cards
        self.folder = folder or folder_for(site.database_path)

    def fonts(self, lang: str) -> tuple[FontFile | None, FontFile | None]:
        """(regular, bold) fonts of site language `lang`: both the configured file when one is
        set; None, None when the language has none."""
        language = self.site.languages.get(lang)
        if language is None:
            return None, None
        regular = font_for(lang, language.hreflang, self.settings.fonts, self.site.root)
        if regular is None or lang in self.settings.fonts:
            return regular, regular
        bold = system_font(language.hreflang, bold=True)
        return regular, bold if bold is not None else regular

    def name(self, text: CardText) -> str | None:
        """The file name of the card of `text`, or None when it can have none (cards off, or
        no font for its language)."""
        if not self.settings.enabled:
            return None
        regular, bold = self.fonts(text.lang)
        if regular is None or bold is None:
            return None
        key = {
            "v": VERSION,
            "text": [text.title, text.site, text.meta],
            "colours": [self.settings.background, self.settings.text, self.settings.muted,
                        self.settings.accent],
            "fonts": [_font_key(regular), _font_key(bold)],
        }  # fmt: skip
        digest = hashlib.sha256(json.dumps(key, ensure_ascii=False).encode()).hexdigest()
        return f"{digest[:32]}.png"

    def card(self, text: CardText) -> Card | None:
        """The card of `text`, drawn now unless its file exists; None when it can have none or
        the font cannot be read."""
        name = self.name(text)
        if name is None:
            return None
        target = self.folder / name
        if not target.exists():
            regular, bold = self.fonts(text.lang)
            if regular is None or bold is None:  # name() has checked; a font gone since
                return None
            try:
                _write(draw(text, self.settings, regular, bold), target)
            except OSError as exc:  # a font Pillow cannot read, a full disk: no card, no error
                log.debug("no share card %s: %s", name, exc)  # the page is drawn without it
                return None
        return Card(URL_PREFIX + name, WIDTH, HEIGHT, text.alt)


def _font_key(font: FontFile) -> list[Any]:
    """The font's file name, face and size: the same on every machine with the same font
    package (a card's name does not depend on where the font is installed)."""
    try:
        size: list[Any] = [font.path.stat().st_size]
    except OSError:
        size = []
    return [font.path.name, font.index, *size]


_LOADED = threading.local()  # per thread: a FreeType face is not to be shared between threads


def _load(font: FontFile, size: int) -> ImageFont.FreeTypeFont:
    """The face of `font` at `size`, read once per thread (reading it again for every card
    took about a fifth of drawing one)."""
    loaded: dict[tuple[FontFile, int], ImageFont.FreeTypeFont] | None
    loaded = getattr(_LOADED, "fonts", None)
    if loaded is None:
        loaded = _LOADED.fonts = {}
    face = loaded.get((font, size))
    if face is None:
        face = loaded[(font, size)] = ImageFont.truetype(str(font.path), size, index=font.index)
    return face


TEXT_LEVELS = 32  # palette entries from the background to the title colour (anti-aliasing)
MUTED_LEVELS = 16  # and to the muted colour
ACCENT = TEXT_LEVELS + MUTED_LEVELS  # the palette entry of the accent rule
PNG_LEVEL = 3  # zlib: 2.2 ms and 19 kB a card; the default 6: 6.5 ms, 15 kB; 9: 33 ms, 13 kB


# text coverage (0 to 255) to palette entries: 0 the background, then the colour's ramp
_TITLE_RAMP = [0] + [1 + v * (TEXT_LEVELS - 2) // 255 for v in range(1, 256)]
_MUTED_RAMP = [0] + [TEXT_LEVELS + v * (MUTED_LEVELS - 1) // 255 for v in range(1, 256)]


def _ramp(background: str, colour: str, levels: int) -> list[int]:
    """`levels` RGB triples from `background` (excluded) to `colour`, flattened."""
    a = [int(background[i : i + 2], 16) for i in (1, 3, 5)]
    b = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    pairs = list(zip(a, b, strict=True))
    return [round(x + (y - x) * n / levels) for n in range(1, levels + 1) for x, y in pairs]


def palette(settings: ShareCardSettings) -> list[int]:
    """Index 0 the background, then the title colour's ramp, the muted colour's, the accent."""
    return list(_palette(settings.background, settings.text, settings.muted, settings.accent))


@lru_cache(maxsize=16)
def _palette(bg: str, text: str, muted: str, accent: str) -> tuple[int, ...]:
    rgb = [int(bg[i : i + 2], 16) for i in (1, 3, 5)]
    ramps = _ramp(bg, text, TEXT_LEVELS - 1) + _ramp(bg, muted, MUTED_LEVELS)
    return (*rgb, *ramps, *(int(accent[i : i + 2], 16) for i in (1, 3, 5)))


def _mask(lines: Sequence[tuple[int, str]], font: ImageFont.FreeTypeFont) -> Image.Image:
    """A card-sized coverage mask (0 to 255) of `lines` (`(top, text)`, each at MARGIN)."""
    mask = Image.new("L", (WIDTH, HEIGHT), 0)
    pen = ImageDraw.Draw(mask)
    for top, line in lines:
        pen.text((MARGIN, top), line, font=font, fill=255)
    return mask


_SITE_TOP = MARGIN + 32


def _site_name(site: str, regular: FontFile) -> tuple[Image.Image, tuple[int, int, int, int]]:
    """The site's name as palette entries of the muted ramp, cropped to its box (and the box):
    the same on every card of a site, so drawn once per thread and font."""
    key = (site, regular)
    names: dict[tuple[str, FontFile], Any] | None = getattr(_LOADED, "names", None)
    if names is None:
        names = _LOADED.names = {}
    found = names.get(key)
    if found is None:
        mask = _mask([(_SITE_TOP, site)], _load(regular, SITE_SIZE))
        box = mask.getbbox() or (0, 0, 0, 0)
        found = names[key] = (mask.crop(box).point(_MUTED_RAMP), box)
    return found


def _lighten(indices: Image.Image, mapped: Image.Image, box: tuple[int, int, int, int]) -> None:
    """`indices` within `box` made the larger of itself and `mapped` (a crop of that size)."""
    indices.paste(ImageChops.lighter(indices.crop(box), mapped), box)


def _meets(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def draw(
    text: CardText, settings: ShareCardSettings, regular: FontFile, bold: FontFile
) -> Image.Image:
    """The card of `text`, as a palette image. Raises OSError for a font Pillow cannot read.

    The text is drawn as anti-aliased coverage masks (one for the title, one for the muted
    lines), each mapped onto its ramp of palette entries: no quantizing of a full-colour image
    (which took half the time of a card), and exact colours. Every pixel is the larger of its
    title entry and its muted entry (a muted one where a pixel has both), the accent rule over
    all. The site's name, the same on every card, is drawn once (`_site_name`) and joins the
    card by that same rule; the meta line has a mask of its own, unless it would meet the
    name's box (then both share one mask, as two lines of the muted text)."""
    width = WIDTH - 2 * MARGIN
    for size in TITLE_SIZES:  # the largest size at which the whole title fits
        font = _load(bold, size)
        lines = wrap(text.title, width, font.getlength)
        if len(lines) <= TITLE_LINES:
            break
    else:
        lines = wrap(text.title, width, font.getlength, TITLE_LINES)
    step = round(size * 1.3)
    top = MARGIN + 32 + SITE_SIZE + 48
    title_mask = _mask([(top + n * step, line) for n, line in enumerate(lines)], font)
    meta_font = _load(regular, META_SIZE)
    meta = wrap(text.meta, width, meta_font.getlength, 1)
    meta_top = HEIGHT - MARGIN - META_SIZE
    muted_mask = _mask([(meta_top, meta[0])] if meta else [], meta_font)
    site: Image.Image | None
    site, site_box = _site_name(text.site, regular)
    box = muted_mask.getbbox()
    if box and _meets(box, site_box):  # one mask for both, the name drawn first
        muted_mask = _mask([(_SITE_TOP, text.site)], _load(regular, SITE_SIZE))
        ImageDraw.Draw(muted_mask).text((MARGIN, meta_top), meta[0], font=meta_font, fill=255)
        box, site = muted_mask.getbbox(), None
    # each mask mapped onto its ramp within the box of its text only (0 stays 0: the rest of
    # the card is background), the muted text over the title where a pixel had both
    indices = Image.new("L", (WIDTH, HEIGHT), 0)
    title_box = title_mask.getbbox()
    if title_box:
        indices.paste(title_mask.crop(title_box).point(_TITLE_RAMP), title_box)
    if site is not None and site_box[2] > site_box[0]:
        _lighten(indices, site, site_box)
    if box:
        _lighten(indices, muted_mask.crop(box).point(_MUTED_RAMP), box)
    ImageDraw.Draw(indices).rectangle((MARGIN, MARGIN, MARGIN + 96, MARGIN + 8), fill=ACCENT)
    image = indices.convert("P")  # the same values, as palette indices (no quantizing)
    image.putpalette(palette(settings))
    return image


def _write(image: Image.Image, target: Path) -> None:
    """Save as PNG (a palette image: a few dozen kilobytes), atomically: another worker may
    write the same name at the same time."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            # zlib level 3: a third of the default's (6) time for 30% more bytes (about 19 kB)
            image.save(file, "PNG", compress_level=PNG_LEVEL)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
