"""The plain-Python cores load neither Django nor Celery: a researcher imports them in a notebook."""

import json
import subprocess
import sys

from tests.conftest import REPO

PLAIN = [
    "scoring.s3kg",
    "scoring.cus",
    "scoring.tau",
    "scoring.wl",
    "scoring.cdke",
    "scoring.cdke.metrics",
    "scoring.cdke.prompts",
    "scoring.cdke.grammars",
    "scoring.cdke.verdicts",
    "scoring.stats",
    "scoring.bench",
    "scoring.error_classes",
    "scoring.kg.types",
    "evalplatform.llm",
    "evalplatform.llm.client",
    "evalplatform.llm.structured",
    "evalplatform.llm.prompts",
    "evalplatform.llm.providers.openai_provider",
    "evalplatform.llm.providers.bedrock",
    "evalplatform.llm.cache",
    "evalplatform.llm.pricing",
]


def _loaded_after_import(modules: list[str]) -> dict[str, bool]:
    script = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "loaded = {k: any(m == k or m.startswith(k + '.') for m in sys.modules) for k in ('django', 'celery')}\n"
        "print(json.dumps(loaded))"
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp"}  # no DJANGO_SETTINGS_MODULE either
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True, check=True, timeout=120
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_plain_cores_load_neither_django_nor_celery() -> None:
    assert _loaded_after_import(PLAIN) == {"django": False, "celery": False}


def test_the_check_itself_sees_django_when_a_django_module_is_imported() -> None:
    assert _loaded_after_import(["scoring.cdke", "django.db"])["django"] is True
