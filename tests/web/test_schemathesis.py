"""Property-based calls generated from /api/schema/ by schemathesis, against the WSGI app with an admin's
token on the world of conftest: no operation may answer with a 5xx. A bounded number of examples per
operation keeps the run to about a minute."""

from collections.abc import Iterator

import pytest
from django.core import signals
from django.db import close_old_connections
from hypothesis import HealthCheck, settings

pytest.importorskip("schemathesis")
import schemathesis
from schemathesis.checks import not_a_server_error

from evalplatform.wsgi import application

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
EXAMPLES = 12


@pytest.fixture
def token(world) -> Iterator[str]:
    """An admin's token; while the test runs, requests through the WSGI app keep the test's connection open
    (Django's own test client does the same), or the test transaction would be closed under it."""
    from rest_framework.authtoken.models import Token

    admin = world.users["admin"]
    admin.is_staff = admin.is_superuser = True
    admin.save()
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield Token.objects.create(user=admin).key
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@pytest.mark.django_db
@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_no_api_operation_answers_with_a_server_error(case, token: str) -> None:
    case.call_and_validate(headers={"Authorization": f"Token {token}"}, checks=[not_a_server_error])
