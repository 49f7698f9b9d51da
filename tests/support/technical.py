"""The site of one technical post (issue 32's acceptance page): math, a Mermaid diagram, photos
and a table. Shared by the accessibility gate (tests/test_writing_gate.py) and the benchmarks
(bench/technical_post.py, bench/lighthouse.sh with SITE=…)."""

from __future__ import annotations

import io
import random
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter

TOML = """title = "Field notes"
base_url = "http://127.0.0.1:8765"
default_language = "en"
[languages.en]
name = "English"
"""

BODY = """Measuring a harbour from a small boat takes three things: a formula, a plan, and photos
that show what the numbers mean. The tide height $h(t)$ follows a sum of cosines, and a survey
line of length $L$ sampled every $\\Delta x$ metres gives $n = L / \\Delta x$ soundings.

$$
h(t) = h_0 + \\sum_{k=1}^{K} A_k \\cos\\left(\\omega_k t + \\varphi_k\\right)
$$

A sounding costs $5 and a day costs $400: those are prices, not math.

![The harbour at low tide, boats resting on the mud](photo-1.jpg)

The survey runs in four steps.

| step | what | time |
| --- | --- | ---: |
| 1 | set the tide gauge | 20 min |
| 2 | run the survey lines | 3 h |
| 3 | reduce soundings to chart datum | 1 h |
| 4 | draw the chart | 2 h |

{photos}

The whole survey, as a diagram:

```mermaid
graph LR
  G[Tide gauge] --> R[Reduce soundings]
  S[Survey lines] --> R
  R --> C[Chart]
```

With the gauge read every ten minutes, the error of the reduced depth is about
\\(\\sigma_d = \\sqrt{{\\sigma_s^2 + \\sigma_h^2}}\\).
"""


def photo(seed: int, size: tuple[int, int] = (3000, 2000)) -> bytes:
    """A photo-like JPEG (quality 90), the same for a seed: soft shapes under a grain coarse
    enough to survive downscaling, as a photo's detail does (at 3000×2000, about 1.5 MB; its
    1200-pixel WebP rendition about 230 kB, as a real photo's)."""
    rng = random.Random(seed)
    w, h = size
    small = Image.new("RGB", (w // 8, h // 8))
    draw = ImageDraw.Draw(small)
    for _ in range(80):
        x, y = rng.randrange(small.width), rng.randrange(small.height)
        r = rng.randrange(4, small.width // 6)
        colour = tuple(rng.randrange(0, 256) for _ in range(3))
        draw.ellipse([x - r, y - r, x + r, y + r], fill=colour)
    image = small.filter(ImageFilter.GaussianBlur(2)).resize(size, Image.Resampling.BICUBIC)
    grain = Image.merge("RGB", [Image.effect_noise((w // 4, h // 4), 60) for _ in range(3)])
    image = Image.blend(image, grain.resize(size, Image.Resampling.BICUBIC), 0.3)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=90)
    return out.getvalue()


def write(root: Path, photos: int = 6, size: tuple[int, int] = (3000, 2000)) -> Path:
    """The site folder at `root` with one post, `posts/survey/`, and `photos` photos of `size`
    pixels."""
    post = root / "content" / "posts" / "survey"
    post.mkdir(parents=True, exist_ok=True)
    (root / "masthead.toml").write_text(TOML, encoding="utf-8")
    rest = "\n\n".join(
        f"Survey line {i} seen from the boat.\n\n![Survey line {i}, from the boat](photo-{i}.jpg)"
        for i in range(2, photos + 1)
    )
    front = '---\ntitle: "Surveying a harbour"\ndate: 2026-11-20\ntags: [survey]\n---\n\n'
    (post / "index.md").write_text(front + BODY.replace("{photos}", rest), encoding="utf-8")
    for i in range(1, photos + 1):
        target = post / f"photo-{i}.jpg"
        if not target.exists():
            target.write_bytes(photo(i, size))
    return root
