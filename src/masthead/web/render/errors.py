"""Error pages: a 404 offers a search box and the language's newest posts."""

from __future__ import annotations

from typing import Any

from masthead.config import Language
from masthead.i18n import gettext
from masthead.store import posts as store
from masthead.web.render.layout import Layout

LATEST_ON_404 = 5  # newest posts a 404 page lists


class ErrorPages(Layout):
    """Error pages (`error`)."""

    def error(self, lang: Language, status: int, message: str, path: str) -> tuple[str, int]:
        """An error page; a 404 offers a way forward: a search box and `LATEST_ON_404` of the
        language's newest posts (other errors read nothing, so they render whatever broke)."""
        key = "not_found" if status == 404 else "error"
        return self.page(
            "error.html",
            lang,
            path=path,
            title=gettext(lang.locale, key),
            status=status,
            error_status=status,
            message=message,
            noindex=True,
            latest=self.latest(lang) if status == 404 else [],
        )

    def latest(self, lang: Language) -> list[dict[str, Any]]:
        """The newest published posts of `lang` (`{"title", "url", "date"}`), at most
        `LATEST_ON_404`."""
        rows, _total = store.list_posts(
            self.state.db.read(), lang=lang.code, now=self.state.now(), limit=LATEST_ON_404
        )
        return [{"title": r.title, "url": r.url, "date": self.date(r.date, lang)} for r in rows]
