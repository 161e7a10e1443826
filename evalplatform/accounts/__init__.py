"""A researcher's own API token: created, shown once, replaced and revoked by themselves (page and API)."""
