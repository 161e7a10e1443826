"""System checks on the database a run's workers share (run by ``migrate`` and ``manage.py check --database
default``).

A run's hot paths read small queues that turn over thousands of times (the ASS queue, the cells in flight, the
run's counter row). Each delete or update leaves a dead entry in their indexes that only PostgreSQL's autovacuum
removes; with it off, every read walks all the dead entries left so far, so the rows read per cell grow with the
run (at 10,000 cells, 1,790 rows read per cell with it off against 728 with it on: docs/scale.md), and the planner
never gets statistics."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core import checks
from django.db import connections

AUTOVACUUM_OFF = "runs.W001"


def autovacuum_warnings(setting: str, alias: str) -> list[checks.CheckMessage]:
    """A warning when the server's ``autovacuum`` setting (as ``SHOW autovacuum`` prints it) is off."""
    if setting.strip().lower() in ("on", "true", "1", "yes"):
        return []
    return [
        checks.Warning(
            f"PostgreSQL's autovacuum is {setting!r} on database {alias!r}: the dead index entries a run leaves in "
            "its queues are never removed, so every cell reads more rows as the run grows",
            hint="ALTER SYSTEM SET autovacuum = on; SELECT pg_reload_conf(); (the default, and what the "
            "docker-compose database runs with)",
            id=AUTOVACUUM_OFF,
        )
    ]


@checks.register(checks.Tags.database)
def check_autovacuum(databases: Iterable[str] | None = None, **kwargs: Any) -> list[checks.CheckMessage]:
    messages: list[checks.CheckMessage] = []
    for alias in databases or ():
        connection = connections[alias]
        if connection.vendor != "postgresql":
            continue
        with connection.cursor() as cursor:
            cursor.execute("SHOW autovacuum")
            messages += autovacuum_warnings(str(cursor.fetchone()[0]), alias)
    return messages
