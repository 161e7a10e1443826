"""The database check that ``migrate`` runs: PostgreSQL's autovacuum must be on, or a run's queues read every dead
entry left so far (rows read per cell grow with the run: docs/scale.md)."""

import pytest
from django.core import checks
from django.db import connection

from evalplatform.runs.checks import AUTOVACUUM_OFF, autovacuum_warnings, check_autovacuum


@pytest.mark.parametrize("setting", ["off", "OFF", "false"])
def test_autovacuum_off_is_a_warning_that_names_the_database_and_the_fix(setting: str) -> None:
    [warning] = autovacuum_warnings(setting, "default")
    assert warning.id == AUTOVACUUM_OFF
    assert warning.level == checks.WARNING
    assert "'default'" in warning.msg
    assert warning.hint is not None and "autovacuum = on" in warning.hint


@pytest.mark.parametrize("setting", ["on", "ON", " on"])
def test_autovacuum_on_is_fine(setting: str) -> None:
    assert autovacuum_warnings(setting, "default") == []


@pytest.mark.django_db
def test_the_check_reads_the_servers_own_setting() -> None:
    if connection.vendor != "postgresql":
        assert check_autovacuum(databases=["default"]) == []  # SQLite has no autovacuum to check
        return
    with connection.cursor() as cursor:
        cursor.execute("SHOW autovacuum")
        setting = cursor.fetchone()[0]
    found = check_autovacuum(databases=["default"])
    assert [m.id for m in found] == ([] if setting == "on" else [AUTOVACUUM_OFF])


def test_the_check_is_registered_with_the_database_checks() -> None:
    assert check_autovacuum in checks.registry.registry.get_checks(include_deployment_checks=False)
