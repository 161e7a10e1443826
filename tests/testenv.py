"""Loaded with ``-p tests.testenv`` before Django starts: environment defaults for the test run.

Tests run with DEBUG off, as production does, so they need a strong secret key: a fresh one per test run
(worker processes the tests start inherit it)."""

import os
import secrets

os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
os.environ.setdefault("ALLOWED_HOSTS", "localhost,127.0.0.1,testserver")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
