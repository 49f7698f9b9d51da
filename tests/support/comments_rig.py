"""A site to comment on, for the comment tests: a bilingual site (English posts with a Chinese
translation, a closed one, an old one, five more), indexed into a real SQLite file, with the real
`SiteState` the app would build, on a clock the test moves; `Rig.send` submits through the real
`web.submission.submit`."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from masthead.comments.rules import Submission
from masthead.comments.submit import Outcome, submit
from masthead.config import Site
from masthead.indexing.indexer import index_and_log
from masthead.store import comments as store
from masthead.store.db import Database
from masthead.web.cache.state import SiteState
from masthead.web.http.address import base_url

from support.sites import BILINGUAL_TOML, post, write_site

T0 = 1_780_000_000.0  # 2026-05-28, after every post's date
POSTS = {
    "posts/harbour-lights.md": post("Harbour lights", "2026-05-01"),
    "posts/harbour-lights.zh.md": post("港口灯火", "2026-05-01"),
    "posts/closed.md": post("Closed", "2026-05-01", comments="false"),
    "posts/old.md": post("Old", "2020-01-01"),
    **{f"posts/p{i}.md": post(f"P{i}", "2026-05-01") for i in range(1, 6)},
}
HARBOUR = "/posts/harbour-lights/"


@dataclass
class Rig:
    """A served site's state with a settable clock, and a short way to submit."""

    state: SiteState
    now: list[float]

    def send(
        self,
        body: str = "Lovely piece.",
        *,
        post: str = HARBOUR,
        ip: str = "198.51.100.7",
        cookie: str | None = "browser-1",
        elapsed: float | None = None,
        staff: bool = False,
        **fields: object,
    ) -> Outcome:
        values: dict[str, object] = {
            "post": post,
            "parent": None,
            "name": "Alice",
            "email": "alice@example.org",
            "url": "",
            "body": body,
        }
        values.update(fields)
        form = Submission(**values)  # type: ignore[arg-type]
        return submit(
            self.state,
            form,
            client_ip=ip,
            cookie_id=cookie,
            scripted_elapsed=elapsed,
            staff_session=staff,
        )

    def comment(self, comment_id: int) -> store.Comment:
        found = store.get(self.state.db.read(), comment_id)
        assert found is not None
        return found

    def count(self) -> int:
        return self.state.db.read().execute("SELECT count(*) FROM comments").fetchone()[0]

    def later(self, seconds: float) -> None:
        self.now[0] += seconds


def rig_factory(tmp_path: Path) -> Iterator[Callable[..., Rig]]:
    """`rig(**settings)`: a new bilingual site with POSTS, indexed, with these settings (TOML
    values). `rig(database=path, …)` starts from a copy of the closed database at `path` (one
    made once a module with users in it: argon2 hashes a password in a few tenths of a second),
    indexed again as a site's next start would."""
    opened: list[Database] = []

    def make(database: Path | None = None, **settings: str) -> Rig:
        lines = "".join(f"{k} = {v}\n" for k, v in settings.items())
        site: Site = write_site(tmp_path / f"site{len(opened)}", POSTS, lines + BILINGUAL_TOML)
        if database is not None:
            site.database_path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(database, site.database_path)
        db = Database(site.database_path)
        opened.append(db)
        index_and_log(site, db)
        now = [T0]
        base = base_url(site.settings, dev=False, served=None).url
        return Rig(SiteState(site=site, db=db, clock=lambda: now[0], base_url=base), now)

    yield make
    for db in opened:
        db.close()
