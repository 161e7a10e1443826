"""Writes of a user's API token. The key is shown once, when it is made, and never written to the audit trail (the
event names the user, not the key)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from rest_framework.authtoken.models import Token

from evalplatform.audit.services import audit_record
from evalplatform.roles import is_researcher


class TokenRefused(Exception):
    """Only researchers and admins hold API tokens."""


@transaction.atomic
def token_create(*, user: User) -> Token:
    """A new token for the user, replacing (revoking) the one they had: a program holding the old key is refused
    from now on."""
    if not is_researcher(user):
        raise TokenRefused("only researchers and admins use the API with a token")
    replaced = Token.objects.filter(user=user).delete()[0] > 0
    token = Token.objects.create(user=user)
    audit_record(actor=user, action="token.create", obj=user, payload={"replaced": replaced})
    return token


@transaction.atomic
def token_revoke(*, user: User) -> bool:
    """Delete the user's token; False when they had none."""
    revoked = Token.objects.filter(user=user).delete()[0] > 0
    if revoked:
        audit_record(actor=user, action="token.revoke", obj=user, payload={})
    return revoked
