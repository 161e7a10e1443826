"""LLM calls per scored answer for AC, with 4 models x 4 temperatures sharing the questions.

RAGAS's answer correctness makes 3 calls per answer (split the answer, split the ground truth, classify);
we split each ground truth once per question and evaluator and reuse it, so AC costs 2 + 1/16 calls.

    .venv/bin/python benchmarks/bench_judge_calls.py

Runs a real CDK-E run (eager tasks, a throwaway SQLite database) against a local OpenAI-compatible
server that answers like a judge, and counts the requests it received."""

import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
WORK = tempfile.mkdtemp(prefix="bench-judge-calls-")
os.environ.update(
    DEBUG="1",
    DATABASE_URL=f"sqlite:///{WORK}/bench.sqlite3",
    CELERY_TASK_ALWAYS_EAGER="1",
    EVALPLATFORM_VAR_DIR=WORK,
    DJANGO_SETTINGS_MODULE="evalplatform.settings",
    LOG_LEVEL="WARNING",
)

import django

django.setup()

from django.core.management import call_command
from django.db import transaction

from evalplatform.corpus.models import Dataset
from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import ModelEndpoint
from tests.runs.judge_server import JudgeServer

MODELS, TEMPERATURES = 4, [0.0, 0.3, 0.7, 1.0]


def main() -> None:
    call_command("migrate", verbosity=0)
    call_command("import_dataset", str(REPO / "data/samples/dkd_sample.json"), format="dkd", name="sample")
    with JudgeServer() as server:
        for i in range(MODELS):
            ModelEndpoint.objects.create(
                name=f"cand-{i}",
                provider="openai_compatible",
                model_id=f"cand-{i}",
                base_url=server.base_url,
                mode="completion",
            )
        ModelEndpoint.objects.create(
            name="judge", provider="openai_compatible", model_id="judge", base_url=server.base_url, mode="completion"
        )
        with transaction.atomic():
            run = run_launch(
                dataset=Dataset.objects.get(name="sample"),
                spec={
                    "models": [f"cand-{i}" for i in range(MODELS)],
                    "evaluators": ["judge"],
                    "temperatures": TEMPERATURES,
                    "conditions": ["divergent"],
                },
            )
        calls = server.count()
    run.refresh_from_db()
    answers = calls["answer"]
    ac_calls = calls["statements"] + calls["classify"]
    all_judge = sum(n for kind, n in calls.items() if kind != "answer")
    shape = f"{MODELS} models x {len(TEMPERATURES)} temperatures x 16 questions"
    print(f"run {run.pk} {run.status}: {answers} answers ({shape})")
    print(f"judge requests by kind: {dict(sorted(calls.items()))}")
    print(f"AC calls per scored answer: {ac_calls / answers:.3f} (RAGAS: 3; target <= 2.1)")
    print(f"all judge calls per scored answer (FC/AC, Acc, Cm, LAV): {all_judge / answers:.3f}")


if __name__ == "__main__":
    main()
