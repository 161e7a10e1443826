"""The secrets a stored field scrubs are the environment's as it is now, read once while it stays the same.

Every scrubbed value stored (a cached response, a raw judge output, an error: about three per provider call) scanned
every variable of the environment, decoding each name and value: a cost per call that grows with the environment
(issue 15, CPU per call). The secrets are now kept until the environment or the allow-list changes."""

from typing import Any

import pytest
from django.test import override_settings

from evalplatform.llm import redaction
from evalplatform.runs.fields import stored_secrets

SECRET = "sk-stored-secrets-test-0123456789abcdef"


def test_an_unchanged_environment_is_scanned_once(monkeypatch: pytest.MonkeyPatch) -> None:
    scans: list[int] = []
    scan = redaction.environment_secrets

    def counted(*args: Any, **kwargs: Any) -> list[str]:
        scans.append(1)
        return scan(*args, **kwargs)

    monkeypatch.setattr("evalplatform.runs.fields.environment_secrets", counted)
    monkeypatch.setenv("EVALPLATFORM_TEST_API_KEY", SECRET)
    first = stored_secrets()
    assert stored_secrets() == first and SECRET in first
    assert len(scans) == 1


def test_a_change_of_the_environment_or_the_allow_list_is_seen_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALPLATFORM_TEST_API_KEY", SECRET)
    assert SECRET in stored_secrets()
    monkeypatch.setenv("EVALPLATFORM_TEST_API_KEY", SECRET + "-rotated")
    assert SECRET + "-rotated" in stored_secrets() and SECRET not in stored_secrets()
    monkeypatch.delenv("EVALPLATFORM_TEST_API_KEY")
    assert not any(s.startswith(SECRET) for s in stored_secrets())
    monkeypatch.setenv("EVALPLATFORM_PLAIN_NAME", SECRET)  # not a secret's name...
    assert SECRET not in stored_secrets()
    with override_settings(API_KEY_ENV_ALLOWLIST=["EVALPLATFORM_PLAIN_NAME"]):  # ...until allow-listed
        assert SECRET in stored_secrets()
    assert SECRET not in stored_secrets()
