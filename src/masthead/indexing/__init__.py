"""Bringing the index in step with the files: the indexer, the watcher and its lock, check."""
