"""The real Kubernetes blog corpus (tests/data/k8s-blog, CC BY 4.0) served in both languages."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from masthead.content.discover import walk
from masthead.content.post import parse_post

from support.sites import K8S_GROUP

# the tests share the corpus's app (conftest's `k8s_client`) and its pages: one xdist worker
pytestmark = K8S_GROUP


@pytest.fixture(scope="module")
def corpus(k8s_client):
    site = k8s_client.app.state.masthead.site
    posts = [
        parse_post(site, rel, (site.content_dir / rel).read_bytes())
        for rel in walk(site.content_dir)
    ]
    return site, posts


@pytest.fixture(scope="module")
def client(k8s_client):
    return k8s_client


@pytest.fixture(scope="module")
def page_of(client):
    """The response to a GET of `url` and its HTML parsed, asked and parsed once a module (the
    app's answer to a GET of the corpus does not change). Parsed by lxml, not `html.parser`:
    the same tree for valid HTML (the Nu checker's gate) in a fraction of the time."""
    seen: dict[str, tuple] = {}

    def get(url: str) -> tuple:
        if url not in seen:
            r = client.get(url)
            seen[url] = (r, BeautifulSoup(r.text, "lxml"))
        return seen[url]

    return get


def test_every_file_parses(corpus):
    _site, posts = corpus
    assert len(posts) == 80
    assert sum(p.lang == "zh" for p in posts) == 30
    assert len({p.url for p in posts}) == 80


@pytest.mark.slow  # every page of the corpus
def test_every_post_is_served_with_its_title_and_no_raw_shortcodes(corpus, page_of):
    _site, posts = corpus
    for p in posts:
        r, page = page_of(p.url)
        assert r.status_code == 200, p.source
        assert page.h1.get_text() == p.title, p.source
        body = page.select_one(".post-body")
        text = body.get_text()
        assert "{{<" not in text and "{{%" not in text and "%}}" not in text, p.source
        assert "{{<" not in str(body) and "{{%" not in str(body), p.source


def test_every_translation_pair_links_both_ways(corpus, page_of):
    _site, posts = corpus
    by_key: dict[str, list] = {}
    for p in posts:
        by_key.setdefault(p.translation_key, []).append(p)
    pairs = [v for v in by_key.values() if len(v) == 2]
    assert len(pairs) == 30
    for en, zh in (sorted(pair, key=lambda p: p.lang) for pair in pairs):
        assert (en.lang, zh.lang) == ("en", "zh")
        for here, there, hreflang in ((en, zh, "zh-Hans"), (zh, en, "en")):
            page = page_of(here.url)[1]
            link = page.select_one(f'.post-translations a[hreflang="{hreflang}"]')
            assert link is not None and link["href"] == there.url, here.source
            assert page_of(link["href"])[0].status_code == 200
    singles = [v[0] for v in by_key.values() if len(v) == 1]
    assert len(singles) == 20
    assert page_of(singles[0].url)[1].select_one(".post-translations") is None


def test_corpus_features(corpus, client, page_of):
    _site, posts = corpus
    by_source = {p.source.split("/", 1)[1]: p for p in posts}
    warnings = by_source["en/2020-09-03-warnings.md"]
    assert warnings.date.isoformat().startswith("2020-09-03")
    logging = by_source["en/contextual-logging-in-kubernetes-1-29.md"]
    assert logging.canonical.startswith("https://www.kubernetes.dev/")
    assert len(logging.authors) == 1 and "Patrick Ohly" in logging.authors[0]
    speed = by_source["en/2023-05-15-kubernetes-1-27-updates-on-speeding-up-pod-startup.md"]
    assert speed.date.utcoffset().total_seconds() == 0
    zh = by_source["zh-cn/cpumanager-goes-ga.md"]
    assert zh.lang == "zh" and zh.url.startswith("/zh/posts/")
    page = page_of(zh.url)[1]
    assert page.html["lang"] == "zh-Hans" and page.select_one("#mh-toc-title").get_text() == "目录"
    dockershim = by_source["en/2022-02-17-updated-dockershim-faq.md"]
    assert dockershim.aliases == ("/dockershim/",)
    r = client.get("/dockershim/")
    assert r.status_code == 301 and r.headers["location"] == dockershim.url
    home = client.get("/zh/")
    assert home.status_code == 200
