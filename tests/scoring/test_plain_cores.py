"""The statistics, conflict, panel and reliability cores load neither Django nor Celery."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
import scoring.stats, scoring.conflict, scoring.panel, scoring.reliability
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("django", "celery", "kombu", "rest_framework"))
print(json.dumps(heavy))
"""


def test_cores_import_without_django_or_celery() -> None:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=REPO, env=env, capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
