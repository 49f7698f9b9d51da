"""Pure comment logic (DESIGN.md, "Comments and the dashboard"): the rules that decide what is
published, sanitizing, identity, and the thread tree (`threads`). No store or web imports."""
