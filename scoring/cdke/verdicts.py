"""Strict parsers of what CDK-E's models answer: the judges' statements, TP/FP/FN classifications, scale
scores and LAV verdicts, and the generator's fabricated contexts and draft questions. Each accepts exactly the
JSON shape its grammar in ``scoring.cdke.grammars`` admits, and raises ``UnparseableOutput`` otherwise (no extra
keys, no prose, no out-of-scale value). Plain Python."""

from __future__ import annotations

import re
from dataclasses import dataclass

from evalplatform.llm.errors import UnparseableOutput
from evalplatform.llm.structured import load_json_object, string_list
from scoring.cdke.grammars import ALTERATION_KINDS, ERROR_TYPES, SCALE_VALUES


def parse_statements(raw: str) -> tuple[str, ...]:
    """``{"statements": [str, ...]}`` -> the statements (an empty list is allowed)."""
    data = load_json_object(raw, ("statements",))
    return string_list(data["statements"], "statements", raw)


@dataclass(frozen=True)
class Classification:
    tp: tuple[str, ...]
    fp: tuple[str, ...]
    fn: tuple[str, ...]


def parse_classification(raw: str) -> Classification:
    """``{"TP": [...], "FP": [...], "FN": [...]}`` -> the three lists of statements."""
    data = load_json_object(raw, ("TP", "FP", "FN"))
    return Classification(
        tp=string_list(data["TP"], "TP", raw),
        fp=string_list(data["FP"], "FP", raw),
        fn=string_list(data["FN"], "FN", raw),
    )


def parse_scale(raw: str) -> float:
    """``{"score": S}`` with S exactly one of 0, 0.25, 0.5, 0.75, 1 (CDK-E's Acc / Cm scale)."""
    data = load_json_object(raw, ("score",))
    score = data["score"]
    if isinstance(score, bool) or not isinstance(score, (int, float)) or float(score) not in SCALE_VALUES:
        raise UnparseableOutput(f"score must be one of {list(SCALE_VALUES)}, got {score!r}", raw=raw)
    return float(score)


def parse_lav(raw: str) -> bool:
    """``{"verdict": "valid" | "invalid"}`` (case-insensitive) -> True for valid."""
    data = load_json_object(raw, ("verdict",))
    verdict = data["verdict"]
    if not isinstance(verdict, str) or verdict.strip().lower() not in ("valid", "invalid"):
        raise UnparseableOutput(f"verdict must be 'valid' or 'invalid', got {verdict!r}", raw=raw)
    return verdict.strip().lower() == "valid"


def parse_error_type(raw: str) -> str:
    """``{"error": E}`` with E one of hallucination, context_misalignment, verbose."""
    data = load_json_object(raw, ("error",))
    error = data["error"]
    if error not in ERROR_TYPES:
        raise UnparseableOutput(f"error must be one of {list(ERROR_TYPES)}, got {error!r}", raw=raw)
    return str(error)


_AUTHORS_SCORE = r"([01](?:\.\d+)?)"


def parse_authors_acc_cm(raw: str) -> tuple[float, float]:
    """The authors' format, two lines ``Accuracy: <score>`` and ``Completeness: <score>``, each in [0, 1]."""
    match = re.fullmatch(rf"\s*Accuracy:\s*{_AUTHORS_SCORE}\s*\n\s*Completeness:\s*{_AUTHORS_SCORE}\s*", raw)
    if match is None:
        raise UnparseableOutput("expected two lines, 'Accuracy: <score>' and 'Completeness: <score>'", raw=raw)
    accuracy, completeness = float(match.group(1)), float(match.group(2))
    if not (0.0 <= accuracy <= 1.0 and 0.0 <= completeness <= 1.0):
        raise UnparseableOutput("scores lie between 0.0 and 1.0", raw=raw)
    return accuracy, completeness


def parse_authors_lav(raw: str) -> bool:
    """The authors' format, one line ``LAV: 1`` (valid) or ``LAV: 0``."""
    match = re.fullmatch(r"\s*LAV:\s*([01])(?:\.0+)?\s*", raw)
    if match is None:
        raise UnparseableOutput("expected one line, 'LAV: 1' or 'LAV: 0'", raw=raw)
    return match.group(1) == "1"


@dataclass(frozen=True)
class Alteration:
    kind: str
    original: str
    divergent: str


@dataclass(frozen=True)
class Fabrication:
    divergent_text: str
    alterations: tuple[Alteration, ...]


def parse_fabrication(raw: str) -> Fabrication:
    """The generator's rewritten text and its list of alterations (at least one)."""
    data = load_json_object(raw, ("divergent_text", "alterations"))
    text, items = data["divergent_text"], data["alterations"]
    if not isinstance(text, str) or not text.strip():
        raise UnparseableOutput("divergent_text must be a non-empty string", raw=raw)
    if not isinstance(items, list) or not items:
        raise UnparseableOutput("alterations must be a non-empty list", raw=raw)
    alterations = []
    for item in items:
        if not isinstance(item, dict) or set(item) != {"kind", "original", "divergent"}:
            raise UnparseableOutput("each alteration needs exactly kind, original, divergent", raw=raw)
        kind, original, divergent = item["kind"], item["original"], item["divergent"]
        if kind not in ALTERATION_KINDS:
            raise UnparseableOutput(f"alteration kind must be one of {ALTERATION_KINDS}", raw=raw)
        if not (isinstance(original, str) and isinstance(divergent, str) and original.strip()):
            raise UnparseableOutput("alteration original/divergent must be strings", raw=raw)
        alterations.append(Alteration(kind, original.strip(), divergent.strip()))
    return Fabrication(text.strip(), tuple(alterations))


@dataclass(frozen=True)
class DraftQuestion:
    question: str
    ground_truth: str


def parse_questions(raw: str) -> tuple[DraftQuestion, ...]:
    """``{"questions": [{"question", "ground_truth"}, ...]}``, at least one, none empty."""
    data = load_json_object(raw, ("questions",))
    items = data["questions"]
    if not isinstance(items, list) or not items:
        raise UnparseableOutput("questions must be a non-empty list", raw=raw)
    out = []
    for item in items:
        if not isinstance(item, dict) or set(item) != {"question", "ground_truth"}:
            raise UnparseableOutput("each question needs exactly question and ground_truth", raw=raw)
        q, a = item["question"], item["ground_truth"]
        if not (isinstance(q, str) and isinstance(a, str) and q.strip() and a.strip()):
            raise UnparseableOutput("question and ground_truth must be non-empty strings", raw=raw)
        out.append(DraftQuestion(q.strip(), a.strip()))
    return tuple(out)
