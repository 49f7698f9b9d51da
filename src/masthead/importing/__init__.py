"""Moving in: whole sites and blogs made into masthead sites, with a report of what came across.

A service. `hugo.py` (with `hugo_config.py`, `toml_out.py`) carries a Hugo site over: its settings,
content and static folders. The exports of WordPress (WXR) and Ghost (JSON) are written as one
Markdown file per post or page (a page bundle, with its images beside it) through `files.Writer`
(never over a file the user edited since the last import), with a `report.Report` of everything
done, skipped or not possible; `wordpress.py` and `ghost.py` hold what is particular to each,
`html.py` turns their HTML into Markdown, `postfile.py` writes front matter, `media.py` copies
images.
"""
