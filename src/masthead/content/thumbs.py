"""Cover thumbnails for list cards: each raster cover resized once (Pillow) and kept on disk.

A post's `cover` that is a file beside it (`/media/…`, web/http/media.py) is read once per version
of the file (size, mtime); its thumbnails, `WIDTHS` pixels wide (never wider than the original), are
written as WebP to the site's thumbnail folder (`thumbs/` beside the database) under a name made
of the file's SHA-256 and the width (`3f9a…-320.webp`), so a name always means the same bytes:
`/thumbs/` serves them with a year-long `immutable` Cache-Control. An SVG cover is vector: it is
drawn as it is, with the size its `width`/`height` (or `viewBox`) give. A cover elsewhere (an
http(s) URL) has no thumbnail: pages make no requests to other hosts.

A file Pillow cannot read (truncated, not an image, more than `MAX_PIXELS` pixels) gets no
thumbnail: the card is drawn without one, and `masthead check` names the file (`problem`).
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from PIL import Image, ImageOps, UnidentifiedImageError

from masthead.content.images import svg_size

log = logging.getLogger(__name__)

WIDTHS = (320, 640)  # pixels: a phone's card, and twice that for dense screens
SIZES = "(min-width: 40rem) 12rem, 100vw"  # the card's thumbnail column (site.css)
MAX_PIXELS = 50_000_000  # a larger image is refused (Pillow's decompression-bomb guard)
QUALITY = 80  # WebP quality
THUMB_CACHE = "public, max-age=31536000, immutable"  # names are content hashes
MEDIA = "/media/"
URL_PREFIX = "/thumbs/"
TYPES = {".webp": "image/webp"}  # what /thumbs/ serves
RASTER = frozenset({".jpg", ".jpeg", ".png", ".webp", ".gif"})
BROKEN = (UnidentifiedImageError, Image.DecompressionBombError, OSError, ValueError, SyntaxError)
_BROKEN = BROKEN


@dataclass(frozen=True)
class Thumb:
    """What a card draws: `src` (the smallest), `srcset` ("" for SVG), intrinsic size."""

    src: str
    srcset: str
    width: int
    height: int
    sizes: str = SIZES


def problem(path: Path) -> str | None:
    """Why the raster image at `path` can have no thumbnail, or None when it can."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as image:
                if image.width * image.height > MAX_PIXELS:
                    return f"{image.width}×{image.height} pixels is more than {MAX_PIXELS:,}"
                image.load()
    except Image.DecompressionBombWarning as exc:
        return str(exc)
    except _BROKEN as exc:
        return f"not a readable image ({exc})"
    return None


def folder_for(database: Path) -> Path:
    """The thumbnail folder of the site whose database file is `database`: `thumbs/` beside it
    (derived data, like the database: deleting it costs a resize per cover)."""
    return database.parent / "thumbs"


class Thumbnails:
    """Thumbnails of the covers under `content_dir`, written to `folder`."""

    def __init__(self, content_dir: Path, folder: Path) -> None:
        self.content_dir = content_dir.resolve()
        self.folder = folder
        self._known: dict[str, tuple[tuple[int, int], Thumb | None]] = {}
        self._lock = threading.Lock()

    def source(self, cover: str) -> Path | None:
        """The file a `/media/…` cover names, inside the content folder; None otherwise."""
        if not cover.startswith(MEDIA):
            return None
        try:
            path = (self.content_dir / unquote(cover[len(MEDIA) :])).resolve()
        except (OSError, ValueError):  # a NUL byte (`%00`), a loop of links: no such file
            return None
        if not path.is_relative_to(self.content_dir):
            return None
        return path

    def thumb(self, cover: str) -> Thumb | None:
        """The card image of `cover` (a post's stored cover), made now if needed; None when
        there is none to draw (no cover, another host, a broken or missing file)."""
        path = self.source(cover)
        if path is None:
            return None
        try:
            st = path.stat()
        except (OSError, ValueError):
            return None
        version = (st.st_size, st.st_mtime_ns)
        known = self._known.get(cover)
        if known is not None and known[0] == version:
            return known[1]
        made = self._make(cover, path)
        with self._lock:
            self._known[cover] = (version, made)
        return made

    def _make(self, cover: str, path: Path) -> Thumb | None:
        ext = path.suffix.lower()
        if ext == ".svg":
            size = svg_size(path)
            return Thumb(cover, "", *size) if size else None
        if ext not in RASTER:
            return None
        try:
            return self._resize(path)
        except (*_BROKEN, Image.DecompressionBombWarning) as exc:
            log.warning("%s: no thumbnail: %s", path, exc)
            return None

    def _resize(self, path: Path) -> Thumb:
        made = renditions(path, self.folder, WIDTHS)
        srcset = ", ".join(f"{url} {w}w" for w, _h, url in made)
        width, height, src = made[0]
        return Thumb(src, srcset, width, height)


def renditions(
    path: Path, folder: Path, widths: Sequence[int], quality: int = QUALITY
) -> list[tuple[int, int, str]]:
    """`(width, height, URL)` of the WebP renditions of the raster image at `path`, `widths`
    pixels wide (never wider than the original), smallest first, written to `folder` under
    names made of the file's SHA-256 and the width unless they are there already. Raises
    Pillow's errors, or ValueError for an image of more than `MAX_PIXELS` pixels."""
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()[:32]
    image: Any = None
    made: list[tuple[int, int, str]] = []
    size = _size(path)
    for width in sorted({min(w, size[0]) for w in widths}):
        height = max(1, round(size[1] * width / size[0]))
        name = f"{digest}-{width}.webp"
        target = folder / name
        if not target.exists():
            if image is None:
                image = _open(path)
            resized = image.resize((width, height), Image.Resampling.LANCZOS)
            _write(resized, target, folder, quality)
        made.append((width, height, URL_PREFIX + name))
    return made


def _size(path: Path) -> tuple[int, int]:
    """The upright size of the image at `path` (EXIF orientation applied), header only."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        with Image.open(path) as opened:
            if opened.width * opened.height > MAX_PIXELS:
                raise ValueError(f"{opened.width}×{opened.height} pixels is too large")
            turned = opened.getexif().get(0x0112, 1) in (5, 6, 7, 8)  # EXIF Orientation
            return (opened.height, opened.width) if turned else (opened.width, opened.height)


def _open(path: Path) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        with Image.open(path) as opened:
            image: Any = ImageOps.exif_transpose(opened)
            image.load()
            return image


def _write(image: Any, target: Path, folder: Path, quality: int = QUALITY) -> None:
    """Save atomically: another worker may write the same name at the same time."""
    if image.mode not in ("RGB", "RGBA"):
        image = image.convert("RGBA" if "A" in image.getbands() else "RGB")
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            image.save(file, "WEBP", quality=quality, method=4)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
