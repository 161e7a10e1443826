"""The main navigation: which parts of the product the signed-in user may open (a template context processor, so
every page, the error pages included, shows only links that lead somewhere for that user)."""

from __future__ import annotations

from django.http import HttpRequest

from evalplatform.roles import is_admin, is_annotator, is_researcher


def roles(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav": {"researcher": False, "annotator": False, "admin": False, "staff": False}}
    return {
        "nav": {
            "researcher": is_researcher(user),
            "annotator": is_annotator(user),
            "admin": is_admin(user),
            "staff": bool(getattr(user, "is_staff", False)),
        }
    }
