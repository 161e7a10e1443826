"""The break-it pass's findings (issue 13), one module per finding, on the web tests' world: users of every
role, a project with a small DKD dataset and a finished run with scores (tests/web/conftest.py)."""

from tests.web.conftest import _fresh_throttles, world  # noqa: F401 (fixtures)
