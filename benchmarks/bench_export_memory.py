"""Peak memory of streaming a run's exports: a 100-question and a 1000-question run (rows bulk-created,
no model is called), each export consumed chunk by chunk as a client would, peak measured by tracemalloc.
Streaming over a cursor keeps the peak flat: the ratio printed should stay near 1, not near 10.

    DEBUG=1 .venv/bin/python benchmarks/bench_export_memory.py            # a throwaway SQLite database
    DATABASE_URL=postgres://... .venv/bin/python benchmarks/bench_export_memory.py
"""

import os
import secrets
import sys
import tempfile
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalplatform.settings")
os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
if "DATABASE_URL" not in os.environ:
    os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp(prefix='bench-export-')}/bench.sqlite3"

import django

django.setup()

from django.core.management import call_command
from django.db import connection

from evalplatform.corpus.models import Context, Dataset, Question
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from scoring.exports import export_run
from scoring.models import GenerationScore

METRICS = ("lav", "acc", "cm", "fc", "ac")
ANSWER = "The tower was finished in 1901 in Lyon, as the divergent context states. " * 3


def build_run(n_questions: int, endpoint: ModelEndpoint) -> Run:
    dataset = Dataset.objects.create(name=f"bench-{n_questions}-{os.getpid()}", kind=Dataset.Kind.DKD)
    contexts = Context.objects.bulk_create(
        Context(dataset=dataset, key=f"c{i}", position=i, text="A divergent text. " * 40)
        for i in range(max(1, n_questions // 20))
    )
    questions = Question.objects.bulk_create(
        Question(
            dataset=dataset,
            context=contexts[i % len(contexts)],
            key=f"q{i}",
            position=i // len(contexts),
            text=f"Question {i}?",
            ground_truth="In 1901.",
        )
        for i in range(n_questions)
    )
    run = Run.objects.create(
        kind=Run.Kind.CDKE,
        dataset=dataset,
        status=Run.Status.DONE,
        spec={"models": [endpoint.name], "evaluators": ["judge"]},
    )
    generations = Generation.objects.bulk_create(
        (
            Generation(
                run=run, question=q, model=endpoint, temperature=t, condition="divergent", status="done", text=ANSWER
            )
            for q in questions
            for t in (0.0, 0.7)
        ),
        batch_size=1000,
    )
    if not generations[0].pk:  # backends that do not return ids from bulk_create
        generations = list(Generation.objects.filter(run=run))
    GenerationScore.objects.bulk_create(
        (
            GenerationScore(generation=g, scorer="judge", metric=m, value=1.0, raw_output='{"score": 1}')
            for g in generations
            for m in METRICS
        ),
        batch_size=2000,
    )
    return run


def peak_of(run: Run, kind: str, fmt: str) -> tuple[int, int]:
    tracemalloc.start()
    tracemalloc.reset_peak()
    size = 0
    for chunk in export_run(run, kind, fmt):
        size += len(chunk)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak, size


def main() -> None:
    call_command("migrate", verbosity=0)
    endpoint, _ = ModelEndpoint.objects.get_or_create(
        name="bench-model", defaults={"provider": "imported", "model_id": "bench"}
    )
    runs = {n: build_run(n, endpoint) for n in (100, 1000)}
    for kind in ("generations", "scores"):  # warm-up: one-time allocations (query compilation) are not counted
        peak_of(runs[100], kind, "csv")
    print(f"database: {connection.vendor}")
    print(f"{'export':<18} {'100 q: bytes':>14} {'peak KiB':>10} {'1000 q: bytes':>14} {'peak KiB':>10} {'ratio':>7}")
    for kind in ("generations", "scores"):
        for fmt in ("csv", "jsonl"):
            peak_small, size_small = peak_of(runs[100], kind, fmt)
            peak_large, size_large = peak_of(runs[1000], kind, fmt)
            print(
                f"{kind + '.' + fmt:<18} {size_small:>14} {peak_small / 1024:>10.0f} {size_large:>14} "
                f"{peak_large / 1024:>10.0f} {peak_large / peak_small:>7.2f}"
            )
    print("The 1000-question export is ~10x the bytes; a flat peak keeps the ratio of peaks near 1.")


if __name__ == "__main__":
    main()
