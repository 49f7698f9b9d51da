"""Full-text search: Chinese segmentation, the query language and result snippets (pure code);
the SQL lives in `masthead.store.search`."""
