"""The web tests' world (users of every role, a project with a small DKD dataset and a finished run), the judge
server and its endpoints, shared with the workflow tests."""

from tests.runs.conftest import endpoint_factory, judge_server  # noqa: F401
from tests.web.conftest import _fresh_throttles, world  # noqa: F401
