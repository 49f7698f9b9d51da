"""The layout's rules, checked by the suite: SQL lives in `masthead.store` alone, and the
imports between layers point down (`[tool.importlinter]` in pyproject.toml, run by
import-linter)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "masthead"
STORE = PACKAGE / "store"

# what runs SQL or opens a database: only store/ may
SQL_CALLS = re.compile(r"\.execute\(|\.executemany\(|\.executescript\(|sqlite3\.connect\(")


def _outside_store() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if STORE not in p.parents)


def test_only_the_store_runs_sql():
    files = _outside_store()
    assert len(files) > 50, "the package was not found where this test looks"
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if SQL_CALLS.search(line)
    ]
    assert not found, "SQL outside src/masthead/store/ (add a store function):\n" + "\n".join(found)


def test_the_sql_check_sees_a_call():
    # the pattern the check above relies on finds what it is meant to
    assert SQL_CALLS.search('rows = conn.execute("SELECT 1")')
    assert SQL_CALLS.search("conn = sqlite3.connect(path)")
    assert SQL_CALLS.search("cur.executemany(sql, rows)")
    assert not SQL_CALLS.search("store.comments.commit(db, apply)")


def test_the_layers_point_down():
    # the lint-imports beside this interpreter (the venv's), with pyproject.toml's contracts
    command = Path(sys.executable).with_name("lint-imports")
    assert command.exists(), f"{command} is missing: install the dev dependencies"
    done = subprocess.run(
        [str(command), str(ROOT / "pyproject.toml"), "--no-cache", "--no-logo"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout, done.stdout
