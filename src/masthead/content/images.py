"""Intrinsic sizes of a post's own images, written into its HTML so that the browser reserves
their box before they arrive (no layout shift: https://web.dev/articles/optimize-cls#images).

Only images served from the content folder (`/media/…`, as `content.urls` rewrites relative
paths) are measured: raster files by Pillow, which reads the header only, SVG by its root
`width`/`height` or `viewBox`. An `<img>` that already has a `width` or `height`, a remote image
and a file that cannot be read are left as they are.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

from defusedxml import ElementTree
from PIL import Image, UnidentifiedImageError

from masthead.content.urls import MEDIA_PREFIX

_IMG = re.compile(r"<img\b([^>]*)>")
_SRC = re.compile(r'\bsrc="([^"]*)"')
_SIZED = re.compile(r'\b(?:width|height)="')
_LENGTH = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(px)?\s*$")
_BROKEN = (UnidentifiedImageError, Image.DecompressionBombError, OSError, ValueError, SyntaxError)


def svg_size(path: Path) -> tuple[int, int] | None:
    """An SVG's size in CSS pixels from its root `width`/`height`, else its `viewBox`; None when
    it has neither or cannot be parsed (defusedxml refuses entities)."""
    try:
        root = ElementTree.parse(path).getroot()
    except Exception:  # any parse failure: no size, never an error for the post
        return None
    w, h = (_LENGTH.match(root.get(a, "")) for a in ("width", "height"))
    if w and h:
        width, height = float(w.group(1)), float(h.group(1))
    else:
        box = (root.get("viewBox") or "").replace(",", " ").split()
        try:
            width, height = float(box[2]), float(box[3])
        except (IndexError, ValueError):
            return None
    if width <= 0 or height <= 0:
        return None
    return round(width), round(height)


def image_size(path: Path) -> tuple[int, int] | None:
    """`(width, height)` in pixels of the image file at `path`, or None when unreadable."""
    if path.suffix.lower() == ".svg":
        return svg_size(path)
    try:
        with Image.open(path) as image:  # lazy: the header only, no pixel decoded
            return image.width, image.height
    except _BROKEN:
        return None


def media_file(src: str, content_dir: Path) -> Path | None:
    """The file a `/media/…` URL names inside `content_dir`, or None (elsewhere, missing)."""
    if not src.startswith(MEDIA_PREFIX):
        return None
    rel = unquote(src[len(MEDIA_PREFIX) :].split("#", 1)[0].split("?", 1)[0])
    path = (content_dir / rel).resolve()
    try:
        path.relative_to(content_dir.resolve())
    except ValueError:
        return None
    return path if path.is_file() else None


def add_sizes(html: str, content_dir: Path) -> str:
    """`html` (sanitized: attributes double-quoted) with `width` and `height` added to every
    `<img>` whose file under `content_dir` has a known size and that has neither yet."""

    def sized(m: re.Match[str]) -> str:
        attrs = m.group(1)
        src = _SRC.search(attrs)
        if src is None or _SIZED.search(attrs):
            return m.group(0)
        path = media_file(src.group(1), content_dir)
        size = image_size(path) if path else None
        if size is None:
            return m.group(0)
        return f'<img{attrs} width="{size[0]}" height="{size[1]}">'

    return _IMG.sub(sized, html)
