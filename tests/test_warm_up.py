"""`warm_up`: a serving worker pays its one-time costs (template compilation, locale data,
FastAPI's route state) before its first reader does (issue 13: a post's first request after a
server start took 0.25 s of the Lighthouse run's first page), and changes nothing readers get."""

from __future__ import annotations

from starlette.testclient import TestClient

from masthead.web.app import create_app, warm_up

POST = "/posts/typography-for-long-reads/"


def _compiled(app) -> set[str]:
    return {name for _loader, name in app.state.renderer.env.cache}


def test_warm_up_compiles_the_reader_templates_only(demo_site):
    app = create_app(demo_site)
    assert _compiled(app) == set()
    warm_up(app)
    compiled = _compiled(app)
    assert {"base.html", "post.html", "list.html", "archive.html", "error.html"} <= compiled
    assert {"_card.html", "_seo_head.html", "_theme_switch.html"} <= compiled  # the partials
    assert not [name for name in compiled if name.startswith(("guanli/", "mail"))], compiled


def test_pages_after_a_warm_up_are_the_pages_without_one(demo_site, tmp_path):
    warm = create_app(demo_site)
    warm_up(warm)
    cold = create_app(demo_site, index=False)
    with TestClient(warm) as a, TestClient(cold) as b:
        for path in (POST, "/zh/", "/archive/", "/no-such-page/"):
            first, second = a.get(path), b.get(path)
            assert (first.status_code, first.text) == (second.status_code, second.text), path
