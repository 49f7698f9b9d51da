"""Page caching: site state and generation, the fast path, conditional responses, encodings,
purge."""
