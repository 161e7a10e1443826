"""Finding 2: weak secret keys started with DEBUG off (32 x "a", and the .env.example placeholder that the docker
set-up copies). Keys with too little variety or from a known list are refused with a line that says how to make
one; .env.example carries no key, and docker compose refuses to start on it."""

import os
import re
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from evalplatform.secret_keys import secret_key_problem
from tests.conftest import REPO

OLD_PLACEHOLDER = "change-me-to-a-long-random-string-of-at-least-32-characters"
CHECK = "import django; django.setup(); print('started')"


def _start(secret_key: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DEBUG", "ALLOWED_HOSTS"}}
    env |= {"DJANGO_SETTINGS_MODULE": "evalplatform.settings", "DEBUG": "0", "SECRET_KEY": secret_key}
    return subprocess.run([sys.executable, "-c", CHECK], cwd=REPO, env=env, capture_output=True, text=True)


@pytest.mark.parametrize("weak", ["a" * 32, OLD_PLACEHOLDER])
def test_debug_off_refuses_the_weak_keys_of_the_finding(weak: str) -> None:
    result = _start(weak)
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr and "secrets.token_urlsafe(50)" in result.stderr


def test_debug_off_starts_on_a_generated_key() -> None:
    result = _start(secrets.token_urlsafe(50))
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        ("a" * 64, "too little variety"),
        ("ab" * 32, "too little variety"),
        ("abcdefgh" * 8, "too little variety"),  # eight distinct characters, one pattern
        ("0123456789" * 4, "too little variety"),
        ("insecure-development-key-do-not-use-in-production", "published"),
        ("django-insecure-" + secrets.token_urlsafe(40), "published"),
        ("please-CHANGEME-" + secrets.token_urlsafe(40), "placeholder"),
        (secrets.token_urlsafe(16), "shorter than 32"),
    ],
)
def test_weak_or_published_keys_are_named_for_what_is_wrong(key: str, problem: str) -> None:
    assert problem in (secret_key_problem(key) or "")


@pytest.mark.parametrize(
    "key", [secrets.token_hex(16), secrets.token_urlsafe(50), "correct horse battery staple 1984 zebra"]
)
def test_random_keys_and_passphrases_pass(key: str) -> None:
    assert secret_key_problem(key) is None


# The services built from this repository, which all read the secret key.
APP_SERVICES = ("web", "worker-llm", "worker", "beat")


def _env_file_value(path: Path, name: str) -> str | None:
    for line in path.read_text().splitlines():
        if line.startswith(f"{name}="):
            return line.split("=", 1)[1]
    return None


def test_env_example_holds_no_key_and_compose_requires_one_with_a_way_to_make_it() -> None:
    assert _env_file_value(REPO / ".env.example", "SECRET_KEY") == ""
    compose = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    for service in APP_SERVICES:
        value = compose["services"][service]["environment"]["SECRET_KEY"]
        assert re.fullmatch(r"\$\{SECRET_KEY:\?.*secrets\.token_urlsafe\(50\).*\}", value), value


def _compose_command() -> list[str] | None:
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    return None


def test_docker_compose_refuses_the_example_env_and_says_how_to_generate_a_key(tmp_path: Path) -> None:
    command = _compose_command()
    if command is None:
        pytest.skip("neither docker compose nor docker-compose is installed (make browsers)")
    shutil.copy(REPO / "docker-compose.yml", tmp_path / "docker-compose.yml")
    shutil.copy(REPO / ".env.example", tmp_path / ".env")
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}  # compose reads the shell's first
    refused = subprocess.run([*command, "config"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert refused.returncode != 0
    assert "SECRET_KEY" in refused.stderr and "secrets.token_urlsafe(50)" in refused.stderr
    key = secrets.token_urlsafe(50)
    dotenv = (tmp_path / ".env").read_text().replace("SECRET_KEY=\n", f"SECRET_KEY={key}\n")
    (tmp_path / ".env").write_text(dotenv)
    accepted = subprocess.run([*command, "config"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert accepted.returncode == 0, accepted.stderr
    assert accepted.stdout.count(key) == len(APP_SERVICES)
