"""Parsers for every import format: each turns a file into a validated DatasetPayload or raises
DatasetImportError naming the file, the record and the field. Nothing here writes to the database.

Formats (documented in the README):
- ``dkd``: one JSON document ``{"name", "contexts": [{"id", "topic", "source_context"?, "divergent_context",
  "alterations"?: [{"field", "original", "divergent"}], "questions": [{"id", "question", "ground_truth",
  "original_answer"?}]}]}``.
- ``dkd-dir``: the public DKD layout, a folder with ``dkd_contexts.jsonl`` and ``dkd_questions.jsonl``.
- ``qa-jsonl``: one question per line with its context inline.
- ``pairs-jsonl``: one text pair per line.
- ``pubmedqa``: the PubMedQA labelled set (``pqal_1000.jsonl``), long answer as ground truth.

Knowledge graphs extracted elsewhere travel with the data: a pair may carry ``kg_a`` / ``kg_b``, a QA
record ``kg_gold``, ``kg_context`` and ``kg_llm`` (the latter with the ``llm_answer`` it was extracted
from and the ``model`` that answered). Each is a list of ``[head, relation, tail]`` string lists, given as
JSON or as a Python-literal string (``"[['A', 'rel', 'B']]"``, as the S3KG authors' CSVs store them);
they are validated here and kept, as lists of raw labels, in the record's metadata.
"""

import ast
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evalplatform.corpus.payload import AlterationData, ContextData, DatasetPayload, PairData, QuestionData
from evalplatform.corpus.records import (
    DatasetImportError,
    KeyRegistry,
    Record,
    parse_json,
    read_json_lines,
    read_text,
)

FORMATS = ("dkd", "dkd-dir", "qa-jsonl", "pairs-jsonl", "pubmedqa")
QA_GRAPH_FIELDS = ("kg_gold", "kg_context", "kg_llm")
PAIR_GRAPH_FIELDS = ("kg_a", "kg_b")
# Longest label a Triplet row stores (scoring.models.Triplet's columns).
GRAPH_LABEL_MAX = 500
# A Python-literal graph longer than this is refused before ast.literal_eval sees it.
GRAPH_LITERAL_MAX = 1_000_000

# qa-jsonl reads several common spellings of the same field; the first present wins.
QA_ANSWER_FIELDS = ("answer", "ground_truth", "gold_answer", "long_answer")
QA_ORIGINAL_FIELDS = ("original_answer", "real_answer", "memory_answer")
QA_SOURCE_FIELDS = ("source_context", "real_context")


def _first_present(record: Record, fields: tuple[str, ...]) -> str | None:
    for name in fields:
        if record.obj.get(name) is not None:
            return name
    return None


LINE_KEY_HINT = "if the rows are distinct, key them by line (import_dataset --key-by-line)"


def record_key(rec: Record, *, key_by_line: bool) -> str:
    """The record's key: its ``id``, or with ``key_by_line`` its line (``line-12``), the file's own id then
    kept as ``source_id``. Some published files repeat ids for distinct rows (the S3KG authors' MRPC and
    STS12 graph files do), which are refused unless keyed by line."""
    if not key_by_line:
        key = rec.key()
    else:
        key = rec.label.replace(" ", "-")
        if rec.obj.get("id") is not None:
            if "source_id" in rec.obj:
                raise rec.error("source_id", "is where a line-keyed import keeps the file's id: rename the field")
            rec.obj["source_id"] = rec.key()
    rec.label = f"{rec.label} (id={key})"
    return key


def parse_graph(record: Record, field: str) -> list[list[str]] | None:
    """The graph in ``field`` as a list of [head, relation, tail] raw labels; None when absent.

    A string is read as a Python literal (``ast.literal_eval``: literals only, nothing is executed) or as
    JSON; anything but a list of three strings per item is an import error naming the item. An empty label
    is kept (the source graphs have a few): the paper's variants drop such a triplet, the reference keeps it."""
    value = record.obj.get(field)
    if value is None:
        return None
    if isinstance(value, str):
        if len(value) > GRAPH_LITERAL_MAX:
            raise record.error(field, f"is longer than {GRAPH_LITERAL_MAX} characters")
        if not value.strip():
            return []
        try:
            value = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            raise record.error(field, "is a string that is not a list literal of [head, relation, tail]") from None
    if not isinstance(value, list | tuple):
        raise record.error(field, f"must be a list of [head, relation, tail], got {type(value).__name__}")
    graph: list[list[str]] = []
    for index, item in enumerate(value):
        where = f"{field}[{index}]"
        if not isinstance(item, list | tuple):
            raise record.error(where, f"must be a [head, relation, tail] list, got {type(item).__name__}")
        if len(item) != 3:
            raise record.error(where, f"has {len(item)} labels, expected 3 (head, relation, tail)")
        for label in item:
            if not isinstance(label, str):
                raise record.error(where, f"has a {type(label).__name__} label, expected strings")
            if len(label) > GRAPH_LABEL_MAX:
                raise record.error(where, f"has a label longer than {GRAPH_LABEL_MAX} characters")
        graph.append([str(label) for label in item])
    return graph


def _graphs(record: Record, fields: tuple[str, ...]) -> dict[str, list[list[str]]]:
    found = {}
    for name in fields:
        graph = parse_graph(record, name)
        if graph is not None:
            found[name] = graph
    return found


def _alterations(record: Record) -> list[AlterationData]:
    result = []
    for index, item in enumerate(record.object_list("alterations")):
        sub = Record(item, record.source, f"{record.label}.alterations[{index}]")
        result.append(
            AlterationData(
                field=sub.string("field"),
                original=sub.string("original", allow_empty=True),
                divergent=sub.string("divergent", allow_empty=True),
            )
        )
    return result


def parse_dkd(path: Path, limit: int) -> DatasetPayload:
    source = str(path)
    document = parse_json(read_text(path, limit), source)
    if not isinstance(document, dict):
        raise DatasetImportError(source, "expected a JSON object with 'name' and 'contexts'")
    top = Record(document, source, "(top level)")
    payload = DatasetPayload(
        kind="dkd",
        name=top.string("name"),
        source=top.string("source", required=False),
        licence=top.string("licence", required=False),
        description=top.string("description", required=False),
    )
    context_keys = KeyRegistry("context id")
    question_keys = KeyRegistry("question id")
    contexts = top.object_list("contexts", required=True)
    if not contexts:
        raise top.error("contexts", "must hold at least one context")
    for c_index, c_obj in enumerate(contexts):
        c_rec = Record(c_obj, source, f"contexts[{c_index}]")
        c_key = c_rec.key()
        c_rec.label = f"contexts[{c_index}] (id={c_key})"
        context_keys.add(c_key, c_rec)
        context = ContextData(
            key=c_key,
            topic=c_rec.string("topic", required=False),
            text=c_rec.string("divergent_context"),
            source_text=c_rec.string("source_context", required=False),
            alterations=_alterations(c_rec),
        )
        for q_index, q_obj in enumerate(c_rec.object_list("questions", required=True)):
            q_rec = Record(q_obj, source, f"{c_rec.label}.questions[{q_index}]")
            q_key = q_rec.key()
            q_rec.label = f"{c_rec.label}.questions[{q_index}] (id={q_key})"
            question_keys.add(q_key, q_rec)
            context.questions.append(
                QuestionData(
                    key=q_key,
                    text=q_rec.string("question"),
                    ground_truth=q_rec.string("ground_truth"),
                    original_answer=q_rec.string("original_answer", required=False),
                )
            )
        payload.contexts.append(context)
    return payload


def parse_dkd_dir(path: Path, limit: int) -> DatasetPayload:
    if not path.is_dir():
        raise DatasetImportError(
            str(path), "dkd-dir expects a folder holding dkd_contexts.jsonl and dkd_questions.jsonl"
        )
    payload = DatasetPayload(kind="dkd", name=path.name)
    contexts: dict[str, ContextData] = {}
    context_keys = KeyRegistry("context id")
    contexts_file = path / "dkd_contexts.jsonl"
    for label, obj in read_json_lines(contexts_file, limit):
        rec = Record(obj, str(contexts_file), label)
        key = rec.key()
        context_keys.add(key, rec)
        contexts[key] = ContextData(key=key, topic=rec.string("topic", required=False), text=rec.string("context"))
        payload.contexts.append(contexts[key])
    question_keys = KeyRegistry("question id")
    questions_file = path / "dkd_questions.jsonl"
    for label, obj in read_json_lines(questions_file, limit):
        rec = Record(obj, str(questions_file), label)
        key = rec.key()
        question_keys.add(key, rec)
        context_id = rec.string("context_id")
        if context_id not in contexts:
            raise rec.error("context_id", f"names context '{context_id}', which dkd_contexts.jsonl does not hold")
        contexts[context_id].questions.append(
            QuestionData(key=key, text=rec.string("question"), ground_truth=rec.first_string(*QA_ANSWER_FIELDS))
        )
    if not payload.contexts:
        raise DatasetImportError(str(contexts_file), "holds no contexts")
    return payload


QA_KNOWN_FIELDS = {
    "id",
    "question",
    "context",
    "context_id",
    "topic",
    "alterations",
    *QA_ANSWER_FIELDS,
    *QA_ORIGINAL_FIELDS,
    *QA_SOURCE_FIELDS,
    *QA_GRAPH_FIELDS,
}


def parse_qa_jsonl(path: Path, limit: int, key_by_line: bool = False) -> DatasetPayload:
    """One question per line. Questions sharing a ``context_id`` (or, without one, the same context text)
    share one context; a context without an id is keyed by the id of its first question."""
    payload = DatasetPayload(kind="qa", name=path.stem)
    contexts: dict[str, ContextData] = {}
    question_keys = KeyRegistry("question id", hint=LINE_KEY_HINT)
    for label, obj in read_json_lines(path, limit):
        rec = Record(obj, str(path), label)
        key = record_key(rec, key_by_line=key_by_line)
        question_keys.add(key, rec)
        text = rec.string("context")
        explicit = rec.string("context_id", required=False)
        group = explicit or "text:" + hashlib.sha256(text.encode()).hexdigest()
        context = contexts.get(group)
        source_field = _first_present(rec, QA_SOURCE_FIELDS)
        if context is None:
            context = ContextData(
                key=explicit or key,
                text=text,
                topic=rec.string("topic", required=False),
                source_text=rec.string(source_field, required=False) if source_field else "",
                alterations=_alterations(rec),
            )
            contexts[group] = context
            payload.contexts.append(context)
        elif context.text != text:
            raise rec.error("context", f"differs from the text of context '{context.key}' given earlier")
        answer_field = _first_present(rec, QA_ANSWER_FIELDS)
        if answer_field is None:
            raise rec.error("answer", f"is required (also read as: {', '.join(QA_ANSWER_FIELDS[1:])})")
        original_field = _first_present(rec, QA_ORIGINAL_FIELDS)
        metadata = rec.extras(QA_KNOWN_FIELDS)
        graphs = _graphs(rec, QA_GRAPH_FIELDS)
        if "kg_llm" in graphs:
            metadata["llm_answer"] = rec.string("llm_answer", allow_empty=True)
            metadata["model"] = rec.string("model")
        metadata.update(graphs)
        context.questions.append(
            QuestionData(
                key=key,
                text=rec.string("question"),
                ground_truth=rec.string(answer_field),
                original_answer=rec.string(original_field, allow_empty=True) if original_field else "",
                metadata=metadata,
            )
        )
    if not payload.contexts:
        raise DatasetImportError(str(path), "holds no records")
    return payload


PAIR_KNOWN_FIELDS = {"id", "text_a", "text_b", "label", "score", *PAIR_GRAPH_FIELDS}


def parse_pairs_jsonl(path: Path, limit: int, key_by_line: bool = False) -> DatasetPayload:
    payload = DatasetPayload(kind="pairs", name=path.stem)
    keys = KeyRegistry("pair id", hint=LINE_KEY_HINT)
    for label, obj in read_json_lines(path, limit):
        rec = Record(obj, str(path), label)
        key = record_key(rec, key_by_line=key_by_line)
        keys.add(key, rec)
        payload.pairs.append(
            PairData(
                key=key,
                text_a=rec.string("text_a"),
                text_b=rec.string("text_b"),
                label=rec.optional_label(),
                score=rec.optional_number("score"),
                metadata={**rec.extras(PAIR_KNOWN_FIELDS), **_graphs(rec, PAIR_GRAPH_FIELDS)},
            )
        )
    if not payload.pairs:
        raise DatasetImportError(str(path), "holds no records")
    return payload


PUBMEDQA_KNOWN_FIELDS = {"id", "question", "context", "long_answer"}


def parse_pubmedqa(path: Path, limit: int) -> DatasetPayload:
    """PubMedQA PQA-L: the abstract without its conclusion is the context, the conclusion (long answer) the
    ground truth; the yes/no/maybe decision, section labels, year and split are kept as metadata."""
    payload = DatasetPayload(
        kind="qa",
        name=path.stem,
        source="PubMedQA PQA-L (Jin et al., EMNLP 2019)",
        licence="MIT",
    )
    keys = KeyRegistry("item id")
    for label, obj in read_json_lines(path, limit):
        rec = Record(obj, str(path), label)
        key = rec.key()
        rec.label = f"{label} (id={key})"
        keys.add(key, rec)
        payload.contexts.append(
            ContextData(
                key=key,
                text=rec.string("context"),
                questions=[
                    QuestionData(
                        key=key,
                        text=rec.string("question"),
                        ground_truth=rec.string("long_answer"),
                        metadata=rec.extras(PUBMEDQA_KNOWN_FIELDS),
                    )
                ],
            )
        )
    if not payload.contexts:
        raise DatasetImportError(str(path), "holds no records")
    return payload


PARSERS: dict[str, Callable[[Path, int], DatasetPayload]] = {
    "dkd": parse_dkd,
    "dkd-dir": parse_dkd_dir,
    "qa-jsonl": parse_qa_jsonl,
    "pairs-jsonl": parse_pairs_jsonl,
    "pubmedqa": parse_pubmedqa,
}


# The line-per-record formats, whose records can be keyed by line instead of by id.
LINE_KEYED_PARSERS: dict[str, Callable[[Path, int, bool], DatasetPayload]] = {
    "qa-jsonl": parse_qa_jsonl,
    "pairs-jsonl": parse_pairs_jsonl,
}


def parse_file(path: Path, fmt: str, *, limit: int, key_by_line: bool = False) -> DatasetPayload:
    if fmt not in PARSERS:
        raise DatasetImportError(str(path), f"unknown format '{fmt}' (known: {', '.join(FORMATS)})")
    if key_by_line:
        if fmt not in LINE_KEYED_PARSERS:
            raise DatasetImportError(
                str(path), f"records can be keyed by line in {', '.join(LINE_KEYED_PARSERS)} only, not in {fmt}"
            )
        return LINE_KEYED_PARSERS[fmt](path, limit, True)
    return PARSERS[fmt](path, limit)


def payload_summary(payload: DatasetPayload) -> dict[str, Any]:
    return {
        "contexts": len(payload.contexts),
        "questions": payload.question_count,
        "alterations": payload.alteration_count,
        "pairs": len(payload.pairs),
    }
