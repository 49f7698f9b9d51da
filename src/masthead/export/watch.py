"""`masthead build SITE OUT --watch`: keep an export in step with the site, alone or beside
`masthead serve`.

After a first build, another (incremental: export/build.py) follows every change:
- a file saved, added or removed in the site folder (content, templates, static files,
  `masthead.toml`; never the database folder, OUT, or editors' temporary files), seen by
  `watchfiles`; the build indexes it first, as `masthead index` would;
- a change committed to the database by another process (a comment approved or trashed in the
  dashboard of a running `masthead serve`, a post indexed by its watcher), seen by the database's
  change signal (store/signal.py), looked at every `POLL` seconds.
A moderated comment fetches again only the pages showing its thread; a saved post only the
pages it can change (export/changes.py); either writes only the files whose bytes changed.
A change made while a build runs is built next. A build that fails (a file cannot be written,
say) is reported and the watch goes on.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from watchfiles import watch as watch_files

from masthead.config import Site, load_site
from masthead.content.discover import is_ignored
from masthead.errors import MastheadError
from masthead.export.build import BuildReport, build
from masthead.store.signal import ChangeSignal

log = logging.getLogger(__name__)

POLL_MS = 200  # between looks at the database's change signal
DEBOUNCE_MS = 50  # file events arriving this close together are one change


def watch(
    site: Site,
    out: Path,
    *,
    jobs: int | None = 1,
    reload: Callable[[Site], Site] | None = None,
    on_build: Callable[[BuildReport], None] | None = None,
    on_error: Callable[[Exception], None] | None = None,
    stop: threading.Event | None = None,
) -> None:
    """Build `site` into `out`, then again after every change (see the module) until `stop` is
    set. `reload(site)` gives the site with its settings read again (after a change to
    `masthead.toml`; default: as loaded at first, with the same overrides); `on_build` is
    given each build's report, `on_error` each failed build's error (a `MastheadError` or an
    OSError: the first build's is raised instead)."""
    reload = reload or (lambda s: load_site(s.root))
    report = on_build or (lambda r: None)
    failed = on_error or (lambda exc: log.error("%s", exc))
    stop = stop or threading.Event()
    target = out.resolve()
    signal = ChangeSignal(site.database_path)
    seen = signal.stamp()
    config = (site.root / "masthead.toml").resolve()
    database_dir = site.database_path.resolve().parent

    def wanted(_change: object, raw: str) -> bool:
        path = Path(raw)
        inside = (target, database_dir)
        if any(path == folder or folder in path.parents for folder in inside):
            return False
        return not is_ignored(path.name)

    # The first build comes after the first look for changes (at most POLL_MS), not before the
    # watch starts: a file saved once that build had read it, but before the watches existed,
    # would never be built (a saved post missing from the export until it is saved again).
    first = True
    for changes in watch_files(
        site.root,
        watch_filter=wanted,
        debounce=DEBOUNCE_MS,
        rust_timeout=POLL_MS,
        yield_on_timeout=True,
        stop_event=stop,
    ):
        if first:  # the watches exist once watchfiles yields: what is saved from now on is seen
            first = False
            report(build(site, out, jobs=jobs))  # its error is raised: there is nothing to watch
            continue
        now = signal.stamp()
        if not changes and now == seen:
            continue
        seen = now  # read before the build: a change committed during it builds again
        if any(Path(raw).resolve() == config for _kind, raw in changes):
            try:
                site = reload(site)
            except MastheadError as exc:
                failed(exc)
                continue
        try:
            report(build(site, out, jobs=jobs))
        except (MastheadError, OSError) as exc:
            failed(exc)
