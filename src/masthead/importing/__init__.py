"""Moving in: whole blogs from WordPress (WXR) and Ghost (JSON) written as a masthead site.

A service: each importer reads its export, writes one Markdown file per post or page (a page
bundle, with its images beside it) through `files.Writer` (never over a file the user edited
since the last import), and gives a `report.Report` of everything it did, skipped or could not
do. `wordpress.py` and `ghost.py` hold what is particular to each; `html.py` turns their HTML
into Markdown, `postfile.py` writes front matter, `media.py` copies images.
"""
