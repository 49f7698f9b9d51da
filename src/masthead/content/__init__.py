"""The content engine: pure functions from a file's bytes to a frozen `Post` (no SQL, no HTTP)."""
