"""Access checks every app's pages and API use: the page decorator and the researcher-only API permission.
The roles themselves are in ``evalplatform.roles``; object-level checks live with the app that owns the object."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.views import APIView

from evalplatform.roles import AnyUser, is_researcher

ViewFunc = Callable[..., HttpResponse]


def page_requires(check: Callable[[AnyUser], bool]) -> Callable[[ViewFunc], ViewFunc]:
    """Pages: anonymous users go to the login page; signed-in users without the role get 403."""

    def decorator(view: ViewFunc) -> ViewFunc:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not check(request.user):
                raise PermissionDenied("your role does not give access to this page")
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


class IsResearcher(BasePermission):
    """Researchers and admins; annotators and users without a role are refused (403)."""

    message = "Only researchers and admins use this part of the API."

    def has_permission(self, request: Request, view: APIView) -> bool:
        return bool(IsAuthenticated().has_permission(request, view) and is_researcher(request.user))


RESEARCHER_ONLY = [IsAuthenticated, IsResearcher]
