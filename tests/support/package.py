"""The project's sources, copied for a wheel build of a test's own.

setuptools builds in the source tree (`build/`, `src/masthead.egg-info`): two builds of one tree
at once (two tests on two workers, or a test and a developer's own `pip wheel .`) fail on each
other's files ("File exists: build/bdist…"). A test builds from its own copy instead.
"""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
FILES = ("pyproject.toml", "README.md")  # what pyproject.toml names (the readme)
IGNORE = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")


def source_copy(dest: Path) -> Path:
    """Copy what a wheel is built from (pyproject.toml, the readme, src/) into `dest`."""
    dest.mkdir(parents=True)
    for name in FILES:
        shutil.copy2(ROOT / name, dest / name)
    shutil.copytree(ROOT / "src", dest / "src", ignore=IGNORE)
    return dest
