"""Dashboard accounts: users, passwords, API tokens, sessions and sign-in (service.py)."""
