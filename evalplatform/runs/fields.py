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
    """The values of the environment's secret variables, and of the allow-listed key variables."""
    return environment_secrets(os.environ, also=settings.API_KEY_ENV_ALLOWLIST)


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
