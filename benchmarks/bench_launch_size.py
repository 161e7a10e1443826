"""Launching a very large run: the pre-flight estimate's time and the launch's time and peak memory at N cells,
in a throwaway database (SQLite by default; DATABASE_URL for PostgreSQL). The run is planned but not sent.

    .venv/bin/python benchmarks/bench_launch_size.py [--cells 100000] [--json OUT]

Targets (issue 15): the estimate of a 100,000-cell run in under a second; the launching request answers at once
(a run over RUN_PLAN_INLINE_CELLS is planned by its first worker task); the planning in bounded memory (a batch
of cells at a time, not the whole plan)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
WORK = tempfile.mkdtemp(prefix="bench-launch-")
os.environ.setdefault("DATABASE_URL", f"sqlite:///{WORK}/bench.sqlite3")
os.environ.update(DEBUG="1", DJANGO_SETTINGS_MODULE="evalplatform.settings", EVALPLATFORM_VAR_DIR=WORK)
os.environ["EVALPLATFORM_MAX_RUN_CELLS"] = str(10**7)

import django

django.setup()

from django.db import connection, transaction

from evalplatform.corpus.models import Dataset
from evalplatform.corpus.payload import ContextData, DatasetPayload, QuestionData
from evalplatform.corpus.services import dataset_import
from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import ModelEndpoint
from evalplatform.runs.services import run_estimate
from evalplatform.runs.spec import RunSpec
from tests.runs.bench_dataset import create_bench_database

QUESTIONS = 1011  # the public DKD
CONTEXT = "In 1931 the engineer Marta Kowal finished the Larkfield bridge over the river Dunmore. " * 20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cells", type=int, default=100_000)
    parser.add_argument("--json", type=Path)
    options = parser.parse_args()
    name = create_bench_database("launch")
    try:
        contexts = [
            ContextData(
                key=f"c{c}",
                text=CONTEXT,
                questions=[
                    QuestionData(key=f"c{c}-q{q}", text=f"Question {q}?", ground_truth="Marta Kowal.")
                    for q in range(20)
                ],
            )
            for c in range(QUESTIONS // 20 + 1)
        ]
        dataset_import(payload=DatasetPayload(kind="dkd", contexts=contexts), name="big", import_format="dkd")
        for i in range(4):
            ModelEndpoint.objects.create(
                name=f"m{i}", provider="openai_compatible", model_id="m", base_url="http://127.0.0.1:9"
            )
        n_questions = Dataset.objects.get(name="big").questions.count()
        temperatures = [0.0, 0.3, 0.7, 1.0]
        conditions = ["divergent", "none"]
        per_question = 4 * len(temperatures) * len(conditions)
        samples = max(1, round(options.cells / (n_questions * per_question)))
        spec = {
            "models": [f"m{i}" for i in range(4)],
            "evaluators": ["m0", "m1"],
            "temperatures": temperatures,
            "conditions": conditions,
            "samples": samples,
        }
        cells = n_questions * per_question * samples
        dataset = Dataset.objects.get(name="big")
        t0 = time.perf_counter()
        estimate = run_estimate(dataset=dataset, spec=RunSpec.from_dict(spec))
        estimate_s = time.perf_counter() - t0
        # The launching request: a run this large is validated and recorded, its cells left to the first worker.
        t0 = time.perf_counter()
        with transaction.atomic():
            run_launch(dataset=dataset, spec=spec, enqueue=True)
            request_s = time.perf_counter() - t0
            transaction.set_rollback(True)  # nothing is sent: the commit never comes
        # The planning the worker does: every cell written, streamed in batches.
        tracemalloc.start()
        t0 = time.perf_counter()
        run = run_launch(dataset=dataset, spec=spec, enqueue=False)
        launch_s = time.perf_counter() - t0
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        figures = {
            "cells": cells,
            "planned": run.generations.count(),
            "estimate_calls": estimate.n_requests,
            "estimate_seconds": round(estimate_s, 3),
            "launch_request_seconds": round(request_s, 3),
            "planning_seconds": round(launch_s, 2),
            "planning_peak_mb": round(peak / 2**20, 1),
            "database": connection.vendor,
        }
        for key, value in figures.items():
            print(f"{key:>18}: {value}")
        if options.json:
            options.json.write_text(json.dumps(figures, indent=2))
    finally:
        connection.creation.destroy_test_db(name, verbosity=0)


if __name__ == "__main__":
    main()
