"""Exporters: each yields the text of a dataset in an import format, piece by piece, so that a large
dataset is streamed rather than built whole in memory. Importing the output gives the same dataset."""

from collections.abc import Iterator
from typing import Any

from django.db.models import Prefetch

from evalplatform import strict_json
from evalplatform.corpus.models import Alteration, Context, Dataset, Question, TextPair

EXPORT_FORMATS = ("dkd", "qa-jsonl", "pairs-jsonl")
CHUNK = 500


def _dumps(obj: Any, indent: int | None = None) -> str:
    return strict_json.dumps(obj, ensure_ascii=False, indent=indent)


def _alterations_of(context: Context) -> list[dict[str, str]]:
    return [{"field": a.field, "original": a.original, "divergent": a.divergent} for a in context.alterations.all()]


def _contexts(dataset: Dataset) -> Iterator[Context]:
    queryset = (
        Context.objects.filter(dataset=dataset)
        .order_by("position", "pk")
        .prefetch_related(
            Prefetch("alterations", queryset=Alteration.objects.order_by("position", "pk")),
            Prefetch("questions", queryset=Question.objects.order_by("position", "pk")),
        )
    )
    yield from queryset.iterator(chunk_size=CHUNK)


def export_dkd(dataset: Dataset) -> Iterator[str]:
    """The ``dkd`` document; optional fields appear only when they hold something."""
    yield "{\n" + f'  "name": {_dumps(dataset.name)},\n  "contexts": ['
    first = True
    for context in _contexts(dataset):
        item: dict[str, Any] = {"id": context.key, "topic": context.topic}
        if context.source_text:
            item["source_context"] = context.source_text
        item["divergent_context"] = context.text
        alterations = _alterations_of(context)
        if alterations:
            item["alterations"] = alterations
        item["questions"] = []
        for question in context.questions.all():
            q: dict[str, str] = {"id": question.key, "question": question.text, "ground_truth": question.ground_truth}
            if question.original_answer:
                q["original_answer"] = question.original_answer
            item["questions"].append(q)
        body = _dumps(item, indent=2).replace("\n", "\n    ")
        yield ("\n    " if first else ",\n    ") + body
        first = False
    yield "\n  ]\n}\n"


def export_qa_jsonl(dataset: Dataset) -> Iterator[str]:
    for context in _contexts(dataset):
        alterations = _alterations_of(context)
        for question in context.questions.all():
            record: dict[str, Any] = {
                "id": question.key,
                "context_id": context.key,
                "question": question.text,
                "context": context.text,
                "answer": question.ground_truth,
            }
            if context.topic:
                record["topic"] = context.topic
            if question.original_answer:
                record["original_answer"] = question.original_answer
            if context.source_text:
                record["source_context"] = context.source_text
            if alterations:
                record["alterations"] = alterations
            record.update({k: v for k, v in question.metadata.items() if k not in record})
            yield _dumps(record) + "\n"


def export_pairs_jsonl(dataset: Dataset) -> Iterator[str]:
    for pair in TextPair.objects.filter(dataset=dataset).order_by("position", "pk").iterator(chunk_size=CHUNK):
        record: dict[str, Any] = {"id": pair.key, "text_a": pair.text_a, "text_b": pair.text_b}
        if pair.label is not None:
            record["label"] = pair.label
        if pair.score is not None:
            record["score"] = pair.score
        record.update({k: v for k, v in pair.metadata.items() if k not in record})
        yield _dumps(record) + "\n"


EXPORTERS = {"dkd": export_dkd, "qa-jsonl": export_qa_jsonl, "pairs-jsonl": export_pairs_jsonl}


def export_dataset(dataset: Dataset, fmt: str) -> Iterator[str]:
    if fmt not in EXPORTERS:
        raise ValueError(f"unknown export format '{fmt}' (known: {', '.join(EXPORT_FORMATS)})")
    if fmt == "pairs-jsonl" and dataset.kind != Dataset.Kind.PAIRS:
        raise ValueError(f"dataset '{dataset.name}' holds {dataset.kind} items, not text pairs")
    if fmt != "pairs-jsonl" and dataset.kind == Dataset.Kind.PAIRS:
        raise ValueError(f"dataset '{dataset.name}' holds text pairs: export it as pairs-jsonl")
    return EXPORTERS[fmt](dataset)
