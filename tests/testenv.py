"""Loaded with ``-p tests.testenv`` before Django starts: environment defaults for the test run.

Tests run with DEBUG off, as production does, so they need a non-default secret key."""

import os

os.environ.setdefault("SECRET_KEY", "test-secret-key-that-is-long-enough-for-the-settings-check")
os.environ.setdefault("ALLOWED_HOSTS", "localhost,127.0.0.1,testserver")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
