"""Settings come from the environment and fail closed with DEBUG off."""

import os
import secrets
import subprocess
import sys

from tests.conftest import REPO

STRONG_KEY = secrets.token_urlsafe(50)

CHECK = (
    "import django; django.setup(); from django.conf import settings; print(settings.DATABASES['default']['ENGINE'])"
)


def _start(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DEBUG", "ALLOWED_HOSTS", "DATABASE_URL"}}
    base["DJANGO_SETTINGS_MODULE"] = "evalplatform.settings"
    return subprocess.run([sys.executable, "-c", CHECK], cwd=REPO, env=base | env, capture_output=True, text=True)


def test_debug_off_refuses_the_default_secret_key() -> None:
    result = _start({"DEBUG": "0"})
    assert result.returncode != 0
    assert "SECRET_KEY is a published key" in result.stderr


def test_debug_off_refuses_a_wildcard_host() -> None:
    result = _start({"DEBUG": "0", "SECRET_KEY": STRONG_KEY, "ALLOWED_HOSTS": "example.org,*"})
    assert result.returncode != 0
    assert "ALLOWED_HOSTS contains '*'" in result.stderr


def test_debug_on_starts_on_the_embedded_sqlite_default() -> None:
    result = _start({"DEBUG": "1"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "django.db.backends.sqlite3"


def test_database_url_selects_postgresql() -> None:
    result = _start({"DEBUG": "0", "SECRET_KEY": STRONG_KEY, "DATABASE_URL": "postgres://u@db:5432/x"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "django.db.backends.postgresql"


def test_a_non_boolean_debug_is_an_error_not_a_guess() -> None:
    result = _start({"DEBUG": "maybe"})
    assert result.returncode != 0
    assert "DEBUG='maybe' is not a boolean" in result.stderr
