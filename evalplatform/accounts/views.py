"""The token page and API: a researcher sees whether they hold a token (and since when), makes a new one (its key is
shown this once) and revokes it."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evalplatform.accounts.services import token_create, token_revoke
from evalplatform.permissions import RESEARCHER_ONLY, page_requires
from evalplatform.roles import is_researcher

TokenOut = inline_serializer(
    "TokenOut",
    {
        "key": serializers.CharField(help_text="The key: shown this once. Send it as 'Authorization: Token <key>'."),
        "created": serializers.DateTimeField(),
    },
)


@page_requires(is_researcher)
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    new_key = None
    if request.method == "POST":
        if request.POST.get("action") == "revoke":
            revoked = token_revoke(user=request.user)  # type: ignore[arg-type]
            messages.success(request, "Token revoked." if revoked else "You had no token.")
            return redirect("tokens")
        new_key = token_create(user=request.user).key  # type: ignore[arg-type]
    token = Token.objects.filter(user=request.user).first()  # type: ignore[misc]
    return render(request, "accounts/tokens.html", {"token": token, "new_key": new_key})


class TokenView(APIView):
    """Your API token. GET: whether you hold one and since when (never its key). POST: a new one, replacing the old
    (its key is in this answer only). DELETE: revoke it."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request) -> Response:
        token = Token.objects.filter(user=request.user).first()  # type: ignore[misc]
        return Response({"has_token": token is not None, "created": token.created if token else None})

    @extend_schema(request=None, responses={201: TokenOut})
    def post(self, request: Request) -> Response:
        token = token_create(user=request.user)  # type: ignore[arg-type]
        return Response({"key": token.key, "created": token.created}, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={204: OpenApiResponse(description="Revoked."), 404: OpenApiTypes.OBJECT})
    def delete(self, request: Request) -> Response:
        if not token_revoke(user=request.user):  # type: ignore[arg-type]
            return Response({"detail": "you hold no token"}, status=status.HTTP_404_NOT_FOUND)
        return Response(status=status.HTTP_204_NO_CONTENT)
