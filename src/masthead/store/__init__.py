"""The only place with SQL: one SQLite file holding the derived post index and, later, the data
that is never derived (comments, users, the search log)."""
