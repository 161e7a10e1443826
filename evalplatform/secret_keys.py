"""Which secret keys the settings refuse with DEBUG off: too short, too little variety, or a key that is
public (ours, the placeholder of .env.example, Django's generated development keys, the usual placeholders).

Plain Python: the settings module calls it before Django is configured."""

import math
from collections import Counter

# 32 characters: the shortest key accepted (a token_urlsafe(50) has 67).
MIN_LENGTH = 32
# 3.0 bits per character of the key's own character distribution: a random hex key (secrets.token_hex) has
# about 3.6, a token_urlsafe about 5.3, an English passphrase about 4; "a" * 32 has 0 and "ab" * 16 has 1.
MIN_BITS_PER_CHARACTER = 3.0
# Public keys, refused whatever their variety: they are printed in this repository or in Django's.
KNOWN_KEYS = frozenset(
    {
        "insecure-development-key-do-not-use-in-production",  # settings.py's development default
        "change-me-to-a-long-random-string-of-at-least-32-characters",  # the old .env.example placeholder
    }
)
# Words that mark a placeholder someone forgot to replace, and Django's startproject prefix.
PLACEHOLDER_MARKS = ("change-me", "changeme", "change_me", "replace-me", "your-secret", "secret-key-here")
DJANGO_INSECURE_PREFIX = "django-insecure-"
HOW_TO_GENERATE = "generate one with: python3 -c 'import secrets; print(secrets.token_urlsafe(50))'"


def bits_per_character(key: str) -> float:
    """Shannon entropy of the key's character frequencies, in bits per character."""
    counts = Counter(key)
    return -sum(n / len(key) * math.log2(n / len(key)) for n in counts.values()) if key else 0.0


def is_repetition(key: str) -> bool:
    """True when the key is a shorter string repeated ("abcdefgh" * 4)."""
    return len(key) > 1 and key in (key + key)[1:-1]


def secret_key_problem(key: str) -> str | None:
    """Why ``key`` may not sign sessions in production, or None when it may."""
    lowered = key.lower()
    if key in KNOWN_KEYS or lowered.startswith(DJANGO_INSECURE_PREFIX):
        return "SECRET_KEY is a published key (the development default or a placeholder)"
    if any(mark in lowered for mark in PLACEHOLDER_MARKS):
        return "SECRET_KEY is still a placeholder"
    if len(key) < MIN_LENGTH:
        return f"SECRET_KEY is shorter than {MIN_LENGTH} characters"
    if is_repetition(key) or bits_per_character(key) < MIN_BITS_PER_CHARACTER:
        return "SECRET_KEY has too little variety (a repeated pattern or a few characters)"
    return None
