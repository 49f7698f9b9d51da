"""Gate: the Nu HTML Checker (the W3C validator's engine) reports no error on any kind of demo
page (issue 13, item 4).

The checker is the `vnu-jar` npm package (package.json; installed with `npm ci --ignore-scripts`,
since its install script would download a Java runtime) run once over every page (one JVM start,
tests/support/nu.py), with JSON output. Warnings are printed, errors fail.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from support import nu
from support.a11y_rig import assert_series_and_behind_covered, demo_server, pages
from support.wait import CEILING

pytestmark = pytest.mark.gate  # the accessibility, HTML and performance gates (pyproject)


def test_nu_checker_finds_no_error(tmp_path):
    with demo_server(tmp_path) as base:
        assert_series_and_behind_covered(base)
        files = []
        for name, path in pages(base).items():
            response = httpx.get(base + path, timeout=CEILING)
            assert response.status_code == (404 if name == "404" else 200), path
            file = tmp_path / f"{name}.html"
            file.write_text(response.text, encoding="utf-8")
            files.append(file)
    messages = nu.check(files)
    checked = {Path(m["url"].removeprefix("file:")).name for m in messages if "url" in m}
    errors = nu.errors(messages)
    warnings = [m["message"] for m in messages if m["type"] == "info" and m.get("subType")]
    print("\n".join(warnings))
    assert len(files) >= 12 and checked <= {f.name for f in files}
    assert not errors, f"{len(errors)} Nu errors:\n" + "\n".join(errors)
