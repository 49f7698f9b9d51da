"""The built wheel, installed into a fresh virtual environment, started the way the Docker image
starts it (`masthead serve /site` with MASTHEAD_DATABASE on another volume) from an empty folder."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import httpx
import pytest

from support.client import get
from support.package import source_copy
from support.wait import CEILING, until


def _run(*cmd: str | Path, **kw) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    return subprocess.run(
        [str(c) for c in cmd], capture_output=True, text=True, check=True, timeout=600, **kw
    )


def _serve(
    masthead: Path, *args: str, env: dict[str, str], cwd: Path
) -> tuple[subprocess.Popen, str]:  # type: ignore[type-arg]
    # one worker: the code each worker runs is the wheel's either way, and each worker process
    # imports the app (about a second of CPU)
    proc = subprocess.Popen(
        [str(masthead), "serve", *args, "--host", "127.0.0.1", "--port", "0", "--workers", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=cwd,
    )
    line = proc.stdout.readline() if proc.stdout else ""
    m = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
    assert m, line
    return proc, m.group(1)


def _site_packages(prefix: Path) -> Path:
    return prefix / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"


def _get(url: str) -> httpx.Response:
    return until(lambda: get(url), what=f"{url} answered", retry=httpx.TransportError)


@pytest.mark.slow
def test_wheel_installs_and_serves_from_an_empty_folder(tmp_path):
    dist = tmp_path / "dist"
    _run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "-q",
        "-w",
        dist,
        source_copy(tmp_path / "source"),
    )
    wheels = list(dist.glob("masthead-*.whl"))
    assert len(wheels) == 1
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    # The wheel alone goes into the new environment; its dependencies come from this one's
    # site-packages, seen through a .pth file after the new environment's own (installing the
    # locked dependencies again took most of this test's time). `pip check` then proves the
    # wheel's requirements are met by the locked versions, and the import below that the code
    # run is the wheel's, not this checkout's.
    pip = (sys.executable, "-m", "pip", "--python", python)
    _run(*pip, "install", "-q", "--no-deps", "--no-index", wheels[0])
    (_site_packages(env_dir) / "locked-dependencies.pth").write_text(
        f"{_site_packages(Path(sys.prefix))}\n"
    )
    _run(*pip, "check")
    bare = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = _run(python, "-c", "import masthead; print(masthead.__file__)", cwd=tmp_path, env=bare)
    assert Path(where.stdout.strip()).is_relative_to(env_dir), where.stdout
    masthead = env_dir / "bin" / "masthead"
    empty = tmp_path / "site"
    empty.mkdir()
    data = tmp_path / "data"
    env = {
        **os.environ,
        "MASTHEAD_DATABASE": str(data / "site.db"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    env.pop("PYTHONPATH", None)
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    proc, base = _serve(masthead, str(empty), env=env, cwd=workdir)
    try:
        health = _get(base + "healthz")
        assert health.status_code == 200 and health.json()["status"] == "ok"
        assert _get(base).status_code == 200
        assert (data / "site.db").exists() and not list(empty.iterdir()), "nothing written to /site"
    finally:
        proc.terminate()
        proc.wait(CEILING)
    # the bundled demo (templates, static files and posts are in the wheel)
    proc, base = _serve(masthead, env=env, cwd=workdir)
    try:
        page = _get(base + "posts/kubelet-syncloop-pleg/")
        assert page.status_code == 200 and "SyncLoop" in page.text
        assert _get(base + "static/css/site.css").status_code == 200
    finally:
        proc.terminate()
        proc.wait(CEILING)
