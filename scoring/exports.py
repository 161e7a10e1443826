"""A run's generations and their CDK-E scores as CSV or JSONL, streamed row by row from a server-side cursor
(``.iterator()``): memory stays flat however large the run. CSV cells that a spreadsheet would read as a formula
are escaped (``evalplatform.spreadsheet``); JSONL is standard JSON. Nothing here writes (the export is recorded by
``evalplatform.runs.services.run_export_record``), and no endpoint field
that could hold a secret (``api_key_env`` names a variable, but it is left out all the same) is exported."""

import csv
from collections.abc import Iterable, Iterator
from typing import Any

from django.db import connections, transaction
from django.db.models import QuerySet

from evalplatform import strict_json
from evalplatform.runs.fingerprint import run_fingerprint
from evalplatform.runs.models import Generation, Run
from evalplatform.spreadsheet import csv_cell
from scoring.models import GenerationScore

CHUNK = 100  # rows per fetch from the cursor: the peak memory of an export is about one chunk
GENERATION_FIELDS = {
    "id": "pk",
    "question": "question__key",
    "context": "question__context__key",
    "model": "model__name",
    "temperature": "temperature",
    "condition": "condition",
    "sample_index": "sample_index",
    "status": "status",
    "answer": "text",
    "ground_truth": "question__ground_truth",  # the question's current one
    "tokens_in": "tokens_in",
    "tokens_out": "tokens_out",
    "latency_s": "latency_s",
    "cost_usd": "cost_usd",
    "cached": "cached",
    "prompt_version": "prompt_version",
    "prompt_hash": "prompt_hash",
    "error": "error",
}
SCORE_FIELDS = {
    "generation": "generation_id",
    "question": "generation__question__key",
    "model": "generation__model__name",
    "temperature": "generation__temperature",
    "condition": "generation__condition",
    "sample_index": "generation__sample_index",
    "scorer": "scorer",
    "metric": "metric",
    "value": "value",
    "status": "status",
    "metric_version": "metric_version",
    "ground_truth": "ground_truth",  # the one this score was computed against
    "raw_output": "raw_output",
}
KINDS = ("generations", "scores", "fingerprint")
# Every row of the generations and scores exports carries the first characters of the run's fingerprint hash; the
# "fingerprint" export is the whole fingerprint (evalplatform.runs.fingerprint): one JSON record, or key,value rows.
FINGERPRINT_PREFIX = 16
FORMATS = {"csv": "text/csv; charset=utf-8", "jsonl": "application/x-ndjson; charset=utf-8"}


class _Line:
    """A file-like object whose write returns what it was given, so csv.writer formats one row at a time."""

    def write(self, value: str) -> str:
        return value


def _flat(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key in sorted(value):
            yield from _flat(value[key], f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list):
        yield prefix, ", ".join(str(v) for v in value)
    else:
        yield prefix, value


def _rows(run: Run, kind: str) -> tuple[list[str], Iterator[tuple[Any, ...]]]:
    queryset: QuerySet[Any]
    fingerprint = run_fingerprint(run)
    if kind == "fingerprint":
        return ["key", "value"], iter(list(_flat(fingerprint)))
    if kind == "generations":
        fields = GENERATION_FIELDS
        queryset = Generation.objects.filter(run=run).order_by("pk")
    elif kind == "scores":
        fields = SCORE_FIELDS
        queryset = GenerationScore.objects.filter(generation__run=run).order_by("generation_id", "scorer", "metric")
    else:
        raise ValueError(f"unknown export '{kind}' (known: {', '.join(KINDS)})")
    short = str(fingerprint["hash"])[:FINGERPRINT_PREFIX]
    return [*fields, "fingerprint"], ((*row, short) for row in _fetched(queryset.values_list(*fields.values())))


def _fetched(queryset: QuerySet[Any]) -> Iterator[tuple[Any, ...]]:
    """The rows in chunks from a server-side cursor opened inside a transaction. Outside one, Django declares the
    cursor WITH HOLD and PostgreSQL computes the whole result when it is declared (an export's first row waited
    for the last, 45 ms at 10,000 cells, materialised on the server); inside one, rows are read as they are
    fetched, and the export is one consistent snapshot. The transaction ends with the stream (or when the client
    goes away and the response is closed). SQLite has no such cursors, and a transaction held for a whole stream
    would lock its writers out: there, rows as before."""
    if connections[queryset.db].vendor != "postgresql":
        yield from queryset.iterator(chunk_size=CHUNK)
        return
    with transaction.atomic(using=queryset.db):
        yield from queryset.iterator(chunk_size=CHUNK)


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)  # Decimal costs


def _csv(header: list[str], rows: Iterable[tuple[Any, ...]]) -> Iterator[str]:
    writer = csv.writer(_Line())
    yield writer.writerow(header)
    for row in rows:
        yield writer.writerow(["" if v is None else csv_cell(_plain(v)) for v in row])


def _jsonl(header: list[str], rows: Iterable[tuple[Any, ...]]) -> Iterator[str]:
    for row in rows:
        record = {name: _plain(value) for name, value in zip(header, row, strict=True)}
        yield strict_json.dumps(record, ensure_ascii=False) + "\n"


def export_run(run: Run, kind: str, fmt: str) -> Iterator[str]:
    """Yield the export piece by piece: ``kind`` is generations, scores (each row with the run's fingerprint hash)
    or fingerprint, ``fmt`` csv or jsonl."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format '{fmt}' (known: {', '.join(FORMATS)})")
    if kind == "fingerprint" and fmt == "jsonl":
        return iter([strict_json.dumps(run_fingerprint(run), ensure_ascii=False) + "\n"])
    header, rows = _rows(run, kind)
    return _csv(header, rows) if fmt == "csv" else _jsonl(header, rows)
