"""``/api/``: the API's front door. It lists every endpoint with its methods and what each does (from the OpenAPI
schema, so it is never out of date), and points at the interactive documentation (Swagger UI at ``/api/docs/``,
Redoc at ``/api/redoc/``, served from this server: nothing comes from a CDN) and at how to get a token."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

HTTP_METHODS = ("get", "post", "put", "patch", "delete")


@lru_cache(maxsize=1)
def api_schema() -> dict[str, Any]:
    """The OpenAPI schema, generated once per process (the routes do not change while it runs)."""
    return SchemaGenerator().get_schema(request=None, public=True)


def endpoint_list() -> list[dict[str, Any]]:
    """Every path with its methods and the first sentence of each operation's description."""
    rows = []
    for path, operations in sorted(api_schema()["paths"].items()):
        methods = {}
        for method in HTTP_METHODS:
            operation = operations.get(method)
            if operation is not None:
                text = (operation.get("description") or operation.get("summary") or "").strip()
                methods[method.upper()] = text.split("\n\n")[0].replace("\n", " ")
        rows.append({"path": path, "methods": methods})
    return rows


class ApiIndexView(APIView):
    """The API's index: documentation, authentication, and every endpoint with what it does."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request) -> Response:
        return Response(
            {
                "title": "evalplatform API",
                "documentation": {
                    "swagger_ui": request.build_absolute_uri("/api/docs/"),
                    "redoc": request.build_absolute_uri("/api/redoc/"),
                    "openapi_schema": request.build_absolute_uri("/api/schema/"),
                    "guide": "docs/api.md in the repository",
                },
                "authentication": (
                    "Session (the pages' login, with CSRF) or 'Authorization: Token <key>': researchers make and "
                    "revoke their token at /account/token/ or with POST / DELETE /api/account/token/."
                ),
                "endpoints": endpoint_list(),
            }
        )
