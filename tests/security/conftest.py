"""The break-it pass's findings (issue 13), one module per finding. Most run on the web tests' world: users of
every role, a project with a small DKD dataset and a finished run with scores (tests/web/conftest.py); the run
findings (06, 07, 14, 15, 18) on the pipeline tests' judge server and sample (tests/runs/conftest.py)."""

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalplatform.corpus.models import Dataset
from evalplatform.roles import RESEARCHER, user_add_role
from tests.runs.conftest import endpoint_factory, judge_server, launch, sample_dataset  # noqa: F401 (fixtures)
from tests.web.conftest import _fresh_throttles, world  # noqa: F401 (fixtures)


@pytest.fixture
def owner_client(sample_dataset: Dataset) -> Client:  # noqa: F811 (the fixture imported above)
    """A researcher who created the sample dataset, logged in."""
    user = User.objects.create_user("owner")
    user_add_role(user=user, role=RESEARCHER)
    sample_dataset.created_by = user
    sample_dataset.save()
    client = Client()
    client.force_login(user)
    return client
