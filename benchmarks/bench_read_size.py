"""Reading a run at any size (issue 15, goal 4): the run page, the results API, the plots and the exports of a
finished run of 100, 1,000 and 10,000 cells, each timed (the second request: the first also compiles templates)
with its SQL queries counted.

One real run of a few cells goes through the whole pipeline first (answers and judging against the fake
OpenAI-compatible server of the tests, ASS on the packaged encoder, every task inline), so that every kind of row
a finished run holds is there; the larger runs are that run's cells and scores copied as further samples
(``sample_index``), with their counters finished, and their results computed once as the run's last unit computes
them (``scoring.snapshots.warm``: timed, it is the O(run) part). Then every read is timed.

    DATABASE_URL=postgres://... .venv/bin/python benchmarks/bench_read_size.py [--sizes 100,1000,10000] [--json OUT]

Prints per read and size the seconds and queries, and the ratio of the largest size's seconds to the smallest's
(target: within 3x, constant queries). An export streams every row, so its time grows with the run by nature:
for it the figures are the time to the first chunk and the queries (constant: rows come through a cursor in
chunks), and its rows per second. Runs in a throwaway database of its own (test_bench_read_<pid>), created and
dropped."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalplatform.settings")
os.environ["DEBUG"] = "0"  # as in production
os.environ.setdefault("SECRET_KEY", os.urandom(32).hex())
os.environ["CELERY_TASK_ALWAYS_EAGER"] = "1"  # the small real run's tasks run inline
os.environ["ALLOWED_HOSTS"] = "localhost,127.0.0.1,testserver"

import django

django.setup()
logging.disable(logging.INFO)  # the inline tasks' log lines

from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from evalplatform.corpus.models import Dataset
from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import Generation, ModelEndpoint, Run, StageProgress
from scoring import snapshots
from scoring.models import ErrorTypeJudgement, GenerationScore
from tests.runs.bench_dataset import copy_row, create_bench_database, make_dataset
from tests.runs.judge_server import JudgeServer

TEMPLATE_CELLS = 20
PAGES = {
    "run_page": "/runs/{pk}/",
    "results_api": "/api/runs/{pk}/results/",
    "progress_api": "/api/runs/{pk}/progress/",
    "plot_correlation": "/runs/{pk}/plots/correlation.svg",
    "plot_temperature": "/runs/{pk}/plots/temperature.svg",
    "generations_api": "/api/runs/{pk}/generations/",
}
EXPORTS = {
    "export_scores_csv": "/api/runs/{pk}/export/scores.csv",
    "export_generations_jsonl": "/api/runs/{pk}/export/generations.jsonl",
}


def template_run() -> Run:
    """A small run through the real pipeline: every kind of row a finished run holds."""
    with JudgeServer(latency_s=0.0) as server:
        ModelEndpoint.objects.create(
            name="bench", provider="openai_compatible", model_id="judge", base_url=server.base_url, mode="completion"
        )
        dataset = Dataset.objects.get(name=make_dataset(TEMPLATE_CELLS))
        run = run_launch(
            dataset=dataset,
            spec={"models": ["bench"], "evaluators": ["bench"], "conditions": ["divergent"], "temperatures": [0.2]},
        )
    run.refresh_from_db()
    if run.status != Run.Status.DONE:
        raise SystemExit(f"the template run did not finish: {run.status} {run.status_reason}")
    return run


def scaledcopy_row(template: Run, cells: int) -> Run:
    """A finished run of ``cells`` cells: the template's cells and their scores, copied as further samples."""
    generations = list(Generation.objects.filter(run=template).order_by("pk"))
    scores: dict[int, list[GenerationScore]] = {}
    for score in GenerationScore.objects.filter(generation__run=template):
        scores.setdefault(score.generation_id, []).append(score)
    judgements: dict[int, list[ErrorTypeJudgement]] = {}
    for judgement in ErrorTypeJudgement.objects.filter(generation__run=template):
        judgements.setdefault(judgement.generation_id, []).append(judgement)
    run = copy_row(template)
    run.save()
    for stage in StageProgress.objects.filter(run=template):
        total = stage.per_cell * cells
        StageProgress.objects.create(run=run, stage=stage.stage, per_cell=stage.per_cell, total=total, done=total)
    for start in range(0, cells, 2000):
        batch = [
            (g, copy_row(g, run_id=run.pk, sample_index=i // len(generations)))
            for i in range(start, min(cells, start + 2000))
            for g in [generations[i % len(generations)]]
        ]
        created = Generation.objects.bulk_create([copy for _, copy in batch])
        pairs = [(source, copy) for (source, _), copy in zip(batch, created, strict=True)]
        GenerationScore.objects.bulk_create(
            copy_row(s, generation_id=copy.pk) for source, copy in pairs for s in scores[source.pk]
        )
        ErrorTypeJudgement.objects.bulk_create(
            copy_row(j, generation_id=copy.pk) for source, copy in pairs for j in judgements.get(source.pk, [])
        )
    total = sum(stage.total for stage in StageProgress.objects.filter(run=run))
    Run.objects.filter(pk=run.pk).update(progress_total=total, progress_done=total, progress_failed=0)
    run.refresh_from_db()
    if connection.vendor == "postgresql":  # as autovacuum would have by the time anyone reads a run this size
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return run


def timed(client: Client, url: str, stream: bool = False) -> dict[str, float]:
    """The second request's seconds and queries (and, for a streamed export, the first chunk's seconds and
    the rows per second)."""
    client.get(url)  # warm: templates compiled, imports done
    with CaptureQueriesContext(connection) as queries:
        started = time.perf_counter()
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        out: dict[str, float] = {}
        if stream:
            chunks = iter(response.streaming_content)  # type: ignore[attr-defined]
            first = next(chunks, b"")
            out["first_chunk_seconds"] = time.perf_counter() - started
            lines = first.count(b"\n") + sum(chunk.count(b"\n") for chunk in chunks)
            out["rows"] = lines
        out["seconds"] = time.perf_counter() - started
    out["queries"] = len(queries)
    if stream:
        out["rows_per_second"] = out["rows"] / out["seconds"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100,1000,10000", help="Cells of each run, comma-separated.")
    parser.add_argument("--json", type=Path)
    options = parser.parse_args()
    sizes = [int(s) for s in options.sizes.split(",")]
    name = create_bench_database("read")
    try:
        template = template_run()
        admin = User.objects.create_superuser("bench-admin")
        client = Client()
        client.force_login(admin)
        figures: dict[int, dict[str, Any]] = {}
        for cells in sizes:
            started = time.perf_counter()
            run = scaledcopy_row(template, cells)
            built = time.perf_counter() - started
            started = time.perf_counter()
            snapshots.warm(run)
            warm = time.perf_counter() - started
            figures[cells] = {"build_seconds": round(built, 2), "results_computed_once_seconds": round(warm, 2)}
            for label, url in PAGES.items():
                figures[cells][label] = timed(client, url.format(pk=run.pk))
            for label, url in EXPORTS.items():
                figures[cells][label] = timed(client, url.format(pk=run.pk), stream=True)
            print(f"{cells} cells: built in {built:.1f} s, results computed once in {warm:.2f} s", flush=True)
        small, large = sizes[0], sizes[-1]
        print(f"\n{'read':<40}" + "".join(f"{f'{n} cells':>22}" for n in sizes) + f"{'ratio':>8}   target")
        for label in (*PAGES, *EXPORTS):
            key = "first_chunk_seconds" if label in EXPORTS else "seconds"
            cells_text = "".join(
                f"{figures[n][label][key]:>12.3f} s {figures[n][label]['queries']:>4} q" for n in sizes
            )
            ratio = figures[large][label][key] / max(1e-9, figures[small][label][key])
            queries_flat = len({figures[n][label]["queries"] for n in sizes}) == 1
            target = "within 3x, queries " + ("constant" if queries_flat else "NOT constant")
            print(f"{label + (' (first chunk)' if label in EXPORTS else ''):<40}{cells_text}{ratio:>8.2f}   {target}")
        for label in EXPORTS:
            rates = ", ".join(f"{n}: {figures[n][label]['rows_per_second']:.0f}" for n in sizes)
            print(f"{label} rows per second by cells: {rates}")
        if options.json:
            options.json.write_text(json.dumps(figures, indent=2))
    finally:
        connection.creation.destroy_test_db(name, verbosity=0)


if __name__ == "__main__":
    main()
