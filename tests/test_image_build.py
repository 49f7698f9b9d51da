"""The image's build is locked and its final stage carries nothing it does not run (issue 33,
item 6): masthead's wheel is built with requirements-build.lock's setuptools and wheel, and
pip is not in the final image."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from support.package import source_copy

ROOT = Path(__file__).parents[1]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
BUILD_LOCK = ROOT / "requirements-build.lock"


def pins() -> dict[str, str]:
    lines = [ln.split("#")[0].strip() for ln in BUILD_LOCK.read_text().splitlines()]
    found = {}
    for line in filter(None, lines):
        name, sep, version = line.partition("==")
        assert sep, f"requirements-build.lock: {line!r} is not pinned (name==version)"
        found[name.lower()] = version
    return found


def stages() -> list[str]:
    return re.split(r"^FROM ", DOCKERFILE, flags=re.MULTILINE)[1:]


def test_the_wheel_is_built_with_the_locked_build_backend():
    assert {"setuptools", "wheel"} <= set(pins())
    build = stages()[0]
    step = build[build.index("pip wheel") - 200 : build.index("pip wheel")]
    assert "PIP_CONSTRAINT=/src/requirements-build.lock" in step
    assert re.search(r"^COPY requirements-build\.lock ", build, re.MULTILINE)
    assert "!requirements-build.lock" in (ROOT / ".dockerignore").read_text()


def test_the_final_image_has_no_pip():
    build, final = stages()
    assert "pip uninstall --yes pip" in build.split("pip check", 1)[1]  # the venv's, last
    assert re.search(r"^RUN python -m pip uninstall --yes pip", final, re.MULTILINE)
    assert "pip install" not in final


@pytest.mark.slow
def test_building_the_wheel_as_the_dockerfile_does_uses_the_pinned_setuptools(tmp_path):
    # `pip wheel` builds in an isolated environment of its own, which PIP_CONSTRAINT reaches:
    # that, not the environment pip runs in, decides the build backend's version. This
    # environment's pip runs it; a new virtual environment for it (5 s of CPU, pip installed
    # into it) would change nothing.
    env = {**os.environ, "PIP_CONSTRAINT": str(BUILD_LOCK), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-cache-dir", "--no-deps", "--wheel-dir",
         str(tmp_path / "wheels"), str(source_copy(tmp_path / "source"))],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (tmp_path / "wheels").glob("masthead-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/WHEEL"))
        meta = archive.read(name).decode()
    assert f"Generator: setuptools ({pins()['setuptools']})" in meta, meta
