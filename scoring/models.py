"""Models of the scoring app."""
