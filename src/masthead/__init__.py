"""masthead: an editorial web platform built on Markdown files and one SQLite database."""

__version__ = "0.1.0"
