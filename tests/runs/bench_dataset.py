"""The benchmarks' sample dataset: one context repeated, questions of it in groups of 20 (as the DKD's contexts hold
about 20 questions each), for runs of any number of cells (benchmarks/bench_run_throughput.py, bench_read_size.py);
rows copied, to grow a small real run to any size; and the throwaway database each benchmark runs in."""

import os
from typing import Any, TypeVar

from django.db import connection
from django.db.models import Model

from evalplatform.corpus.payload import ContextData, DatasetPayload, QuestionData
from evalplatform.corpus.services import dataset_import

CONTEXT = (
    "In 1931 the engineer Marta Kowal finished the Larkfield bridge over the river Dunmore, the longest arch of its "
    "time in the county. The town council had voted for it in 1927 after the old ferry sank. Its opening drew "
    "twelve thousand people, and the mayor, Piotr Zalewski, cut the ribbon with a pair of silver scissors. "
) * 2


def create_bench_database(purpose: str) -> str:
    """Create a throwaway database for one benchmark process and switch to it; returns its name, for
    ``connection.creation.destroy_test_db``. On PostgreSQL it is the benchmark's own, ``test_bench_<purpose>_<pid>``,
    never the test suite's ``test_<name>``: a benchmark started beside the suite on the same server would otherwise
    fail on the suite's database, or drop it (autoclobber) and fail the suite. SQLite's is in memory, as the suite's."""
    if connection.vendor != "sqlite":
        connection.settings_dict["TEST"]["NAME"] = f"test_bench_{purpose}_{os.getpid()}"
    return connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)


def make_dataset(cells: int, name: str = "bench") -> str:
    """A DKD dataset of ``cells`` questions, imported under ``name``; returns the name."""
    per_context = 20
    contexts = []
    for c in range((cells + per_context - 1) // per_context):
        questions = [
            QuestionData(
                key=f"c{c}-q{q}",
                text=f"Who finished the Larkfield bridge, question {q} of context {c}?",
                ground_truth="Marta Kowal finished it in 1931.",
            )
            for q in range(min(per_context, cells - c * per_context))
        ]
        contexts.append(ContextData(key=f"c{c}", topic=f"Context {c}", text=CONTEXT, questions=questions))
    dataset_import(payload=DatasetPayload(kind="dkd", contexts=contexts), name=name, import_format="dkd")
    return name


M = TypeVar("M", bound=Model)


def copy_row(row: M, **changes: Any) -> M:
    """An unsaved copy of a row (every concrete field but the primary key), with ``changes``: to grow a run to any
    size by copying a small real one (tests/runs/test_reads_per_cell.py, benchmarks/bench_read_size.py)."""
    values = {f.attname: getattr(row, f.attname) for f in row._meta.concrete_fields if not f.primary_key}
    return type(row)(**(values | changes))
