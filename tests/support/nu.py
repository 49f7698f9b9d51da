"""The Nu HTML Checker (the W3C validator's engine, the `vnu-jar` npm package) over HTML files, in
one JVM run, with its JSON output (https://github.com/validator/validator/wiki/Output-»-JSON).

The JVM runs with its quick compiler only (`-XX:TieredStopAtLevel=1`): a run of a few seconds
never earns back what the optimising compiler costs, and the check takes about 40% less CPU
(1 file: 2.0 s instead of 3.3 s). The quick compiler's frames are larger, so the threads get the
stack the checker asks for (its StackOverflowError says "at least 512k") with room to spare.
The messages do not depend on the compiler.
"""

from __future__ import annotations

import json
import subprocess  # nosec B404: runs the checker, a fixed argument list
from pathlib import Path

from support.a11y_rig import VNU_JAR, java, npm_tool
from support.wait import CEILING

JVM = ["-XX:TieredStopAtLevel=1", "-Xss16m"]


def check(files: list[Path]) -> list[dict]:
    """Every message the checker gives on `files` (errors, warnings and notes)."""
    jar = npm_tool(VNU_JAR)
    cmd = [java(), *JVM, "-jar", str(jar), "--format", "json", "--stdout", "--exit-zero-always"]
    done = subprocess.run(
        cmd + [str(f) for f in files], capture_output=True, text=True, timeout=CEILING
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["messages"]


def errors(messages: list[dict]) -> list[str]:
    """A line per error: file, line, message, the start of the source it is about."""
    return [
        f"{Path(m.get('url', '?')).name}:{m.get('lastLine', '?')}: {m['message']}"
        f" [{m.get('extract', '').strip()[:80]}]"
        for m in messages
        if m["type"] in ("error", "non-document-error")
    ]
