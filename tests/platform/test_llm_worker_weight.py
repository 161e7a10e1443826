"""A worker that calls models loads no encoder: Django set up and every task module imported (what a Celery
worker does at start), then an answer and a judgement run, and neither torch nor sentence-transformers nor spaCy
is in the process."""

import json
import os
import subprocess
import sys

from tests.conftest import REPO

SCRIPT = """
import json, sys
import django
django.setup()
from evalplatform.celery import app
app.loader.import_default_modules()
from scoring.cdke import answer, judge, tasks, stages  # noqa: F401  the answer and judge paths
heavy = {name: any(m == name or m.startswith(name + ".") for m in sys.modules)
         for name in ("torch", "sentence_transformers", "spacy")}
print(json.dumps(heavy))
"""


def test_the_task_modules_a_worker_loads_import_no_encoder() -> None:
    env = os.environ | {"DJANGO_SETTINGS_MODULE": "evalplatform.settings", "DEBUG": "1"}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=REPO, env=env, capture_output=True, text=True, check=True, timeout=180
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {
        "torch": False,
        "sentence_transformers": False,
        "spacy": False,
    }
