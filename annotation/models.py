"""Models of the annotation app."""
