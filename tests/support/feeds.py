"""Reading what the site serves: HTML as a soup, XML by a strict parser, feeds with feedparser,
JSON-LD nodes."""

from __future__ import annotations

import json

import feedparser
from bs4 import BeautifulSoup
from lxml import etree

STRICT = etree.XMLParser(recover=False, resolve_entities=False, no_network=True)


def soup(response) -> BeautifulSoup:  # type: ignore[no-untyped-def]
    return BeautifulSoup(response.text, "html.parser")


def xml(response) -> etree._Element:  # type: ignore[no-untyped-def]
    """The body parsed by a strict XML parser (no recovery): raises on any malformed byte."""
    return etree.fromstring(response.content, STRICT)


def parse_feed(client, url: str) -> feedparser.FeedParserDict:  # type: ignore[no-untyped-def]
    """Fetch a feed, check it is strict XML, and read it with feedparser leaving links as sent."""
    r = client.get(url)
    assert r.status_code == 200, url
    xml(r)
    data = feedparser.parse(r.content, resolve_relative_uris=False, sanitize_html=False)
    assert not data.bozo, (url, data.get("bozo_exception"))
    return data


def structured(page: BeautifulSoup) -> list[dict]:
    """Every JSON-LD node of a page (`@graph` members flattened), parsed as JSON."""
    nodes: list[dict] = []
    for script in page.find_all("script", type="application/ld+json"):
        data = json.loads(script.string)
        assert data["@context"] == "https://schema.org"
        nodes += data.get("@graph", [data])
    return nodes
