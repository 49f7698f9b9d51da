"""A post's own images carry their intrinsic `width` and `height` (issue 13: no layout shift
while a post loads), over the real app; remote, oversized-path, unreadable and already-sized
images are left as written."""

from __future__ import annotations

import io

from bs4 import BeautifulSoup
from PIL import Image

from support.sites import post


def _png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 80, 40)).save(out, "PNG")
    return out.getvalue()


BODY = """![a photo](photo.png)

![a drawing](drawing.svg)

<img src="photo.png" width="50" alt="raw, sized">

![remote](https://example.com/x.png)

![missing](nothing-here.png)

![broken](broken.png)

![outside](../../../etc/passwd.png)

{{< figure src="drawing.svg" caption="A figure" >}}
"""


def test_a_posts_own_images_get_their_size(make_site, serve):
    site = make_site(
        {
            "posts/trip/index.md": post("Trip", body=BODY),
            "posts/trip/photo.png": _png(640, 360),
            "posts/trip/drawing.svg": (
                '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 120"></svg>'
            ),
            "posts/trip/broken.png": b"not a png at all",
        },
        toml='title = "t"\nbase_url = "https://example.com"\nraw_html = true\n',
    )
    client = serve(site)
    page = client.get("/posts/trip/")
    assert page.status_code == 200
    imgs = {img.get("alt"): img for img in BeautifulSoup(page.text, "html.parser").select("img")}
    size = {alt: (img.get("width"), img.get("height")) for alt, img in imgs.items()}
    assert size["a photo"] == ("640", "360")
    assert size["a drawing"] == ("300", "120")
    assert size["raw, sized"] == ("50", None)  # an author's own size is kept, never doubled
    for alt in ("remote", "missing", "broken", "outside"):
        assert size[alt] == (None, None), alt
    figure = BeautifulSoup(page.text, "html.parser").select_one("figure img")
    assert (figure.get("width"), figure.get("height")) == ("300", "120")
    assert client.get(imgs["a photo"]["src"]).status_code == 200
