"""Keeping secrets out of what is stored: which environment variables may hold a provider key, which hold
secrets at all, and replacing their values wherever they turn up in a text or a JSON document.

A provider's error body may echo the key it was sent (a misconfigured proxy, a debugging server), and whatever
the platform stores is shown in pages, the API and exports; so providers scrub their own key from every error
and raw output they make, and the fields that store errors and raw outputs scrub every secret of the
environment once more (``evalplatform.runs.fields``)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "[redacted]"
# Shorter values are not treated as secrets: replacing "true" or a word everywhere would mangle answers. Provider
# keys are far longer (an AWS access key id, the shortest, has 20 characters).
MIN_SECRET_LENGTH = 16
# The names an endpoint's api_key_env may take without an explicit allow-list: OPENAI_API_KEY, HF_TOKEN,
# AWS_BEARER_TOKEN_BEDROCK... Anything else (DATABASE_URL, SECRET_KEY) would be sent to a provider as a key.
KEY_ENV_NAME = re.compile(r"^(?:[A-Z][A-Z0-9_]*_(?:API_KEY|TOKEN)|AWS_[A-Z0-9_]+)$")
# A variable holds a secret to scrub when one of these is a word of its name (OPENAI_API_KEY, AWS_ACCESS_KEY_ID,
# HF_TOKEN, SECRET_KEY). Passwords are left out: a provider never sees one, and a weak one (docker-compose's
# example database password is "evalplatform") would blank every mention of an ordinary word.
SECRET_NAME_WORDS = frozenset({"KEY", "SECRET", "TOKEN", "CREDENTIALS"})


def key_env_allowed(name: str, allowlist: Iterable[str] = ()) -> bool:
    """True when ``name`` may name the variable that holds an endpoint's key: empty (no key), a key-like name
    (``*_API_KEY``, ``*_TOKEN``, ``AWS_*``), or one the operator allow-listed."""
    return name == "" or name in set(allowlist) or KEY_ENV_NAME.fullmatch(name) is not None


@functools.lru_cache(maxsize=4096)
def names_a_secret(name: str) -> bool:
    """Whether a variable of this name holds a secret (remembered per name: every stored text asks, for every
    variable of the environment)."""
    return not SECRET_NAME_WORDS.isdisjoint(name.upper().split("_"))


def environment_secrets(environ: Mapping[str, str], also: Iterable[str] = ()) -> list[str]:
    """The values of the variables of ``environ`` that hold secrets (by name, or named in ``also``), longest
    first so that a secret containing another is replaced whole."""
    wanted = set(also)
    values = {
        value.strip()
        for name, value in environ.items()
        if (name in wanted or names_a_secret(name)) and len(value.strip()) >= MIN_SECRET_LENGTH
    }
    return sorted(values, key=len, reverse=True)


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of every secret replaced by ``[redacted]``."""
    for secret in secrets:
        if len(secret) >= MIN_SECRET_LENGTH and secret in text:
            text = text.replace(secret, REDACTED)
    return text


def redact_json(value: Any, secrets: Iterable[str]) -> Any:
    """A JSON-like value (dicts, lists, strings, numbers) with secrets redacted from every string, keys too."""
    found = list(secrets)
    if not found:
        return value
    if isinstance(value, str):
        return redact(value, found)
    if isinstance(value, dict):
        return {redact_json(k, found): redact_json(v, found) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_json(item, found) for item in value]
    return value
