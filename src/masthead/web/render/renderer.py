"""The renderer of one site: every page type's class over the shared frame (`layout.Layout`)
and helpers (`base.Base`). The app makes one (`app.state.renderer`); routes call its page
functions (`post`, `listing`, `terms`, `archive`, `error`) and its helpers (`page`,
`absolute`, `body_html`…).
"""

from __future__ import annotations

from masthead.web.render.errors import ErrorPages
from masthead.web.render.lists import ListPages
from masthead.web.render.post import PostPage


class Renderer(PostPage, ListPages, ErrorPages):
    """Builds pages for one site from its database and templates."""
