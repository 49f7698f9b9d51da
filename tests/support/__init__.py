"""What the tests share: site builders, servers, the browser, waiting, HTML/feed helpers, the CLI
runner, the XSS corpus and checker, the comment and accessibility rigs.

`tests/` is on `sys.path` (pytest's `pythonpath` in pyproject.toml), so a test module imports
`from support.sites import post`; conftest.py holds only fixtures, thin ones over this package.
No test module imports another.
"""
