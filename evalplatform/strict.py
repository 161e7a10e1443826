"""Request bodies that name only fields the API knows: a serializer mixin that answers 400 for any other field,
where DRF would silently drop it (a misspelt option must never launch a run without it)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class StrictFieldsMixin:
    """Refuse a body with fields the serializer does not declare (400, one message per unknown field)."""

    def to_internal_value(self, data: Any) -> Any:
        declared: Any = getattr(self, "fields", {})
        if hasattr(data, "keys"):
            unknown = sorted(set(data.keys()) - set(declared.keys()))
            if unknown:
                known = ", ".join(sorted(declared.keys()))
                raise serializers.ValidationError(
                    {key: [f"is not a field of this request (known: {known})"] for key in unknown}
                )
        return super().to_internal_value(data)  # type: ignore[misc]
