"""The Ray Data pipeline: load → prompt → generate → validate → store, then reduce → report."""
