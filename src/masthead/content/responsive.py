"""Responsive images in post bodies: WebP renditions in `srcset`, made once when a post is indexed.

Every `<img>` of a body whose file is a raster image in the content folder (`/media/…`; not a
GIF, which may be animated) gets, as a cover's card thumbnail does (`content.thumbs`):

- `srcset`: WebP renditions `WIDTHS` pixels wide (never wider than the original), written once
  by Pillow to the site's thumbnail folder under the file's SHA-256 and the width, served from
  `/thumbs/` with a year-long `immutable` Cache-Control and copied by `masthead build`;
- `sizes`: the post column's width (`SIZES`, from site.css: `--measure` within the gutters);
- `decoding="async"`, and `loading="lazy"` for every image but the first, which may be in the
  first screen (lazy-loading it would delay the page's largest paint); in a post without a
  cover, that first image is likely the largest paint: it gets `fetchpriority="high"`.

`src` stays the original file, so it remains what a link to the image, a feed reader or a
browser without `srcset` gets; an author's own `srcset`, `sizes` or `loading` is kept. An
image Pillow cannot read keeps its markup (`masthead check` reports unreadable covers).

Runs on sanitized HTML (attributes double-quoted, after `content.images.add_sizes`); what it
adds is its own URLs and fixed words.
"""

from __future__ import annotations

import html
import logging
import re
from pathlib import Path

from PIL import Image

from masthead.content import thumbs
from masthead.content.images import media_file

log = logging.getLogger(__name__)

# a phone at 1x (480), 1.75-2x (720) and 3x (1080: 390 px less the gutters), the column (42rem)
# at 1x (720) and 2x (1600)
WIDTHS = (480, 720, 1080, 1600)
QUALITY = 75  # WebP quality of photos in bodies: Hugo's default for processed images
SIZES = "(min-width: 46rem) 42rem, calc(100vw - 2.5rem)"  # site.css: 68ch, 1.25rem gutters
_IMG = re.compile(r"<img\b([^>]*?)\s*/?>")
_SRC = re.compile(r'\bsrc="([^"]*)"')
_HAS = {
    name: re.compile(rf'\b{name}="')
    for name in ("srcset", "sizes", "loading", "decoding", "fetchpriority")
}


def add_renditions(body: str, content_dir: Path, folder: Path, *, cover: bool = False) -> str:
    """`body` (sanitized) with its local raster images made responsive (module docstring);
    renditions are written to `folder` (`thumbs.folder_for(database)`); `cover`: the post has a
    cover, drawn above its body."""
    if "<img" not in body:
        return body
    count = 0

    def one(m: re.Match[str]) -> str:
        nonlocal count
        attrs = m.group(1)
        src = _SRC.search(attrs)
        path = media_file(src.group(1), content_dir) if src else None
        if path is None:
            return m.group(0)
        first = count == 0
        count += 1
        added = ""
        if path.suffix.lower() in thumbs.RASTER and path.suffix.lower() != ".gif":
            added = _srcset(path, folder, attrs)
        if not _HAS["decoding"].search(attrs):
            added += ' decoding="async"'
        if not first and not _HAS["loading"].search(attrs):
            added += ' loading="lazy"'
        elif first and not cover and not _HAS["loading"].search(attrs + added):
            added += "" if _HAS["fetchpriority"].search(attrs) else ' fetchpriority="high"'
        return f"<img{attrs}{added}>"

    return _IMG.sub(one, body)


def _srcset(path: Path, folder: Path, attrs: str) -> str:
    if _HAS["srcset"].search(attrs):
        return ""
    try:
        made = thumbs.renditions(path, folder, WIDTHS, QUALITY)
    except (*thumbs.BROKEN, Image.DecompressionBombWarning) as exc:
        log.warning("%s: no renditions: %s", path, exc)
        return ""
    srcset = ", ".join(f"{url} {w}w" for w, _h, url in made)
    sizes = "" if _HAS["sizes"].search(attrs) else f' sizes="{html.escape(SIZES)}"'
    return f' srcset="{html.escape(srcset)}"{sizes}'
