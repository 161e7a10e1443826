"""Fields that never store a secret of the environment: model outputs, raw provider responses and errors are
scrubbed (``evalplatform.llm.redaction``) on their way into the database, whichever code writes them (save,
bulk_create, update), since whatever is stored is shown in pages, the API and exports.

The providers already scrub their own key from what they return and raise; this is the second line, for what
reaches storage another way (a key that a server echoes into an answer, an exception of another library).
Both fields deconstruct as the plain Django field they extend: the schema is the same, so no migration."""

import os
from typing import Any

from django.conf import settings
from django.db import models

from evalplatform.llm.redaction import environment_secrets, redact, redact_json

# The longest error text kept with a cell or a score.
ERROR_LIMIT = 2000


def stored_error(text: str, limit: int = ERROR_LIMIT) -> str:
    """An error message as stored: scrubbed first, then cut, so a secret across the cut leaves no prefix behind."""
    return redact(text, stored_secrets())[:limit]


def stored_secrets() -> list[str]:
    """The values of the environment's secret variables, and of the allow-listed key variables: scanned again only
    when the environment or the allow-list changed (every scrubbed value stored asks, about three per provider call,
    and a scan decodes every variable's name and value)."""
    global _secrets_seen
    snapshot = (_environment_snapshot(), tuple(settings.API_KEY_ENV_ALLOWLIST))
    seen = _secrets_seen
    if seen is not None and seen[0] == snapshot:
        return seen[1]
    secrets = environment_secrets(os.environ, also=snapshot[1])
    _secrets_seen = (snapshot, secrets)
    return secrets


# The environment and allow-list last scanned, with their secrets (replaced whole, so threads may read it freely).
_secrets_seen: tuple[tuple[object, tuple[str, ...]], list[str]] | None = None


def _environment_snapshot() -> object:
    """The environment's variables as os.environ holds them, encoded (its own mapping's items, copied in C without
    decoding each; os.environ keeps them whatever changes them through it)."""
    data = getattr(os.environ, "_data", None)
    return tuple(data.items()) if isinstance(data, dict) else tuple(os.environ.items())


class ScrubbedTextField(models.TextField):
    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        return redact(value, stored_secrets()) if isinstance(value, str) and value else value

    def deconstruct(self) -> Any:
        name, _path, args, kwargs = super().deconstruct()
        return name, "django.db.models.TextField", args, kwargs


class ScrubbedJSONField(models.JSONField):
    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        return redact_json(value, stored_secrets()) if value else value

    def deconstruct(self) -> Any:
        name, _path, args, kwargs = super().deconstruct()
        return name, "django.db.models.JSONField", args, kwargs
