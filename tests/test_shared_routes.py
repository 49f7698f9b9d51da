"""The page routes (`web.routes.add`) are built once a process and shared by every app routing
the same path to the same endpoint under the same name: FastAPI reads an endpoint's signature
into pydantic models for each route it builds, which was half of `create_app`'s time. A shared
route holds nothing of its app: two apps sharing them serve what each would alone."""

from __future__ import annotations

from fastapi.routing import APIRoute
from starlette.testclient import TestClient

from masthead.web.app import create_app

from support.sites import post

PATHS = ("/", "/posts/typography-for-long-reads/", "/zh/", "/archive/", "/no-such-page/")


def page_routes(app) -> dict[str, APIRoute]:  # type: ignore[no-untyped-def]
    """name → route of every GET route of the app's included routers."""
    found = {}
    for included in app.router.routes:
        for route in getattr(getattr(included, "original_router", None), "routes", ()):
            if isinstance(route, APIRoute) and "GET" in route.methods:
                found[route.name] = route
    return found


def test_two_apps_on_one_site_share_their_page_routes_and_serve_the_same_pages(demo_site):
    first, second = create_app(demo_site), create_app(demo_site, index=False)
    mine, theirs = page_routes(first), page_routes(second)
    assert len(mine) > 20 and mine.keys() == theirs.keys()
    shared = [name for name in mine if mine[name] is theirs[name]]
    assert "home/en" in shared and "home/zh" in shared, shared  # the page routes of `add`
    assert len(shared) > 20
    with TestClient(first) as a, TestClient(second) as b:
        for path in PATHS:
            one, two = a.get(path), b.get(path)
            assert (one.status_code, one.text) == (two.status_code, two.text), path


def test_a_site_with_other_paths_gets_routes_of_its_own(make_site, demo_site):
    """Another language prefix is another path: its routes are its own, and serve its pages."""
    toml = (
        'title = "T"\nbase_url = "https://example.com"\ndefault_language = "en"\n'
        '[languages.en]\nname = "English"\n[languages.fr]\nname = "Français"\nprefix = "fr"\n'
    )
    other = create_app(make_site({"posts/a.md": post("A"), "posts/b.fr.md": post("B")}, toml))
    demo = page_routes(create_app(demo_site, index=False))
    routes = page_routes(other)
    assert "home/fr" in routes and "home/fr" not in demo
    assert routes["home/en"] is demo["home/en"]  # the same path, endpoint and name
    with TestClient(other, follow_redirects=False) as client:
        assert client.get("/fr/").status_code == 200
        assert client.get("/fr/posts/b/").status_code == 200
        assert client.get("/zh/").status_code == 404
