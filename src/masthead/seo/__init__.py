"""SEO outputs as pure functions: data in, strings out (no SQL, no HTTP).

`jsonld` (schema.org JSON-LD), `feeds` (RSS 2.0 and Atom 1.0), `sitemap` (sitemaps.org 0.9 with
hreflang alternates), `robots` (robots.txt, RFC 9309) and `meta` (Open Graph and Twitter card
tags). The queries live in `masthead.store.seo`, the routes in `masthead.web.routes.seo`.
"""
