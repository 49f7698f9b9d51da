"""The route table (web/routes/table.py) is made once a process for each shape of site (`dev`,
the languages' codes and prefixes) and shared by the apps of that shape: an app holds the very
route objects (web/app.py `_route`), so FastAPI analyses each endpoint once a process. Sharing
must never let one app serve another's routes or content: apps of one shape serve their own
sites, an app of another shape gets routes of its own, in any order they are made."""

from __future__ import annotations

from pathlib import Path

from fastapi.routing import APIRoute

from masthead.web.app import create_app
from masthead.web.routes.table import routes_for

from support.sites import BILINGUAL_TOML, post, write_site

ONE_LANGUAGE_TOML = """
title = "One language"
base_url = "https://example.com"
default_language = "en"
timezone = "UTC"
"""

FRENCH_TOML = BILINGUAL_TOML.replace(
    '[languages.zh]\nname = "中文"\nprefix = "zh"',
    '[languages.fr]\nname = "Français"\nprefix = "fr"',
)


def _routes(app) -> list[APIRoute]:  # type: ignore[no-untyped-def]
    """The app's endpoints' routes; every route of the app is one, a mount, or FastAPI's own."""
    routes = [r for r in app.router.routes if isinstance(r, APIRoute)]
    assert len(routes) > 50
    return routes


def test_apps_of_one_shape_share_their_routers_and_each_serves_its_own_site(
    tmp_path: Path, serve
) -> None:
    one = write_site(tmp_path / "one", {"posts/a.md": post("The first site")}, BILINGUAL_TOML)
    two = write_site(tmp_path / "two", {"posts/a.md": post("The second site")}, BILINGUAL_TOML)
    first, second = serve(one), serve(two)

    assert all(a is b for a, b in zip(_routes(first.app), _routes(second.app), strict=True))
    table = routes_for(False, tuple(one.languages.values()))
    shared = [route for router in (*table.first, table.last) for route in router.routes]
    assert _routes(first.app) == shared
    assert "The first site" in first.get("/posts/a/").text
    assert "The second site" in second.get("/posts/a/").text
    assert "The first site" not in second.get("/posts/a/").text
    for client in (first, second):
        assert client.get("/zh/").status_code == 200
        assert client.get("/zh/feed.xml").status_code == 200


def test_a_site_of_another_shape_gets_routes_of_its_own_in_any_order(tmp_path: Path, serve) -> None:
    files = {"posts/a.md": post("A post")}
    bilingual = serve(write_site(tmp_path / "bi", files, BILINGUAL_TOML))
    single = serve(write_site(tmp_path / "single", files, ONE_LANGUAGE_TOML))
    french = serve(write_site(tmp_path / "fr", files, FRENCH_TOML))
    bilingual_again = serve(write_site(tmp_path / "bi2", files, BILINGUAL_TOML))

    assert not set(map(id, _routes(single.app))) & set(map(id, _routes(bilingual.app)))
    assert not set(map(id, _routes(french.app))) & set(map(id, _routes(bilingual.app)))
    again, first = _routes(bilingual_again.app), _routes(bilingual.app)
    assert all(a is b for a, b in zip(again, first, strict=True))
    assert bilingual.get("/zh/search").status_code == 200
    assert bilingual.get("/zh/search/").status_code == 301  # to /zh/search, a route of its own
    assert bilingual.get("/zh/archive/").status_code == 200
    # one language: /zh/ is no language prefix, so /zh/… is a page that does not exist
    assert single.get("/zh/search/").status_code == 404
    assert single.get("/zh/archive/").status_code == 404
    assert single.get("/archive/").status_code == 200
    assert single.get("/feed.xml").status_code == 200
    assert single.get("/all/feed.xml").status_code == 404  # no feed of all languages: one
    assert french.get("/fr/archive/").status_code == 200
    assert french.get("/zh/archive/").status_code == 404
    assert bilingual_again.get("/all/feed.xml").status_code == 200


def test_dev_apps_have_their_own_table_with_the_reload_stream(tmp_path: Path) -> None:
    site = write_site(tmp_path / "site", {"posts/a.md": post("A post")}, BILINGUAL_TOML)
    languages = tuple(site.languages.values())
    dev, production = routes_for(True, languages), routes_for(False, languages)

    assert dev is routes_for(True, languages) and production is routes_for(False, languages)
    assert dev.first[0] is not production.first[0]  # ops: /_dev/reload only in dev
    paths = {getattr(r, "path", "") for r in dev.first[0].routes}
    assert "/_dev/reload" in paths
    assert "/_dev/reload" not in {getattr(r, "path", "") for r in production.first[0].routes}
    app = create_app(site, dev=True)
    assert _routes(app)[: len(dev.first[0].routes)] == dev.first[0].routes
