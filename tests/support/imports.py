"""Fixtures for the WordPress and Ghost imports: the exports under tests/data/imports, an
uploads (or Ghost content) folder of real images, an empty bilingual site to import into."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from masthead.config import Site, load_site

IMPORTS = Path(__file__).parents[1] / "data" / "imports"

SITE_TOML = """
title = "Harbour Notes"
base_url = "https://new.example"
default_language = "en"
timezone = "Asia/Shanghai"

[languages.en]
name = "English"

[languages.zh]
name = "中文"
prefix = "zh"
"""


def empty_site(root: Path, toml: str = SITE_TOML) -> Site:
    (root / "content").mkdir(parents=True, exist_ok=True)
    (root / "masthead.toml").write_text(toml, encoding="utf-8")
    return load_site(root)


def images(root: Path, *names: str) -> Path:
    """Small real images (and other files) at `names` under `root`; `root`."""
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if name.endswith((".jpg", ".png")):
            Image.new("RGB", (40, 30), (10, 90, 160)).save(path)
        else:
            path.write_bytes(b"ID3 not really audio")
    return root


def wordpress_uploads(root: Path) -> Path:
    """A copy of wp-content/uploads for tests/data/imports/wordpress.xml (lost.jpg missing)."""
    return images(root, "2021/03/boats.jpg", "2021/03/gull.png", "2021/03/net.png",
                  "2021/03/waves.mp3")  # fmt: skip


def ghost_content(root: Path) -> Path:
    """A copy of Ghost's content/ folder for ghost4.json and ghost5.json."""
    return images(root, "images/2022/04/pier.jpg", "images/2022/04/one.png",
                  "images/2022/04/two.png", "images/2022/01/ines.png",
                  "images/2023/02/dune.jpg")  # fmt: skip
