"""Strict parsers for judge outputs, and ``judge_call``: one call, one repair, then "unparseable".

Every judge output is one JSON object of a fixed shape (the grammars and schemas in
``prompts.grammars`` produce exactly that). Parsers accept surrounding whitespace and one Markdown
code fence around the object (chat models add them when no schema is enforced) and nothing else:
no extra keys, no prose, no out-of-scale values. A failure raises ``UnparseableOutput`` with the raw
text. ``judge_call`` retries once with a repair prompt, then returns ``JudgeOutcome(value=None,
status="unparseable", raw=...)`` so the pipeline can store, count and show it -- never a 0.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Generic, Literal, TypeVar

from evalplatform.llm.client import LLMClient
from evalplatform.llm.errors import UnparseableOutput
from evalplatform.llm.prompts.base import Constrain, PromptTemplate
from evalplatform.llm.prompts.grammars import ALTERATION_KINDS, SCALE_VALUES
from evalplatform.llm.types import ChatMessage, LLMRequest, LLMResponse, Mode

T = TypeVar("T")
_FENCE = re.compile(r"^```(?:json)?\s*\n?(.*?)\n?\s*```$", re.DOTALL)
REPAIR_VERSION = "repair@1"


def _load_object(raw: str, keys: tuple[str, ...]) -> dict[str, Any]:
    text = raw.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UnparseableOutput(f"not a JSON object: {exc.msg}", raw=raw) from exc
    if not isinstance(data, dict):
        raise UnparseableOutput("not a JSON object", raw=raw)
    if set(data) != set(keys):
        raise UnparseableOutput(f"expected exactly the keys {list(keys)}, got {sorted(data)}", raw=raw)
    return data


def _string_list(value: object, key: str, raw: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise UnparseableOutput(f"{key} must be a list of strings", raw=raw)
    items = tuple(item.strip() for item in value)
    if any(not item for item in items):
        raise UnparseableOutput(f"{key} contains an empty string", raw=raw)
    return items


def parse_statements(raw: str) -> tuple[str, ...]:
    """``{"statements": [str, ...]}`` -> the statements (an empty list is allowed)."""
    data = _load_object(raw, ("statements",))
    return _string_list(data["statements"], "statements", raw)


@dataclass(frozen=True)
class Classification:
    tp: tuple[str, ...]
    fp: tuple[str, ...]
    fn: tuple[str, ...]


def parse_classification(raw: str) -> Classification:
    """``{"TP": [...], "FP": [...], "FN": [...]}`` -> the three lists of statements."""
    data = _load_object(raw, ("TP", "FP", "FN"))
    return Classification(
        tp=_string_list(data["TP"], "TP", raw),
        fp=_string_list(data["FP"], "FP", raw),
        fn=_string_list(data["FN"], "FN", raw),
    )


def parse_scale(raw: str) -> float:
    """``{"score": S}`` with S exactly one of 0, 0.25, 0.5, 0.75, 1 (CDK-E's Acc / Cm scale)."""
    data = _load_object(raw, ("score",))
    score = data["score"]
    if isinstance(score, bool) or not isinstance(score, (int, float)) or float(score) not in SCALE_VALUES:
        raise UnparseableOutput(f"score must be one of {list(SCALE_VALUES)}, got {score!r}", raw=raw)
    return float(score)


def parse_lav(raw: str) -> bool:
    """``{"verdict": "valid" | "invalid"}`` (case-insensitive) -> True for valid."""
    data = _load_object(raw, ("verdict",))
    verdict = data["verdict"]
    if not isinstance(verdict, str) or verdict.strip().lower() not in ("valid", "invalid"):
        raise UnparseableOutput(f"verdict must be 'valid' or 'invalid', got {verdict!r}", raw=raw)
    return verdict.strip().lower() == "valid"


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
    data = _load_object(raw, ("divergent_text", "alterations"))
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
    data = _load_object(raw, ("questions",))
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


@dataclass(frozen=True)
class JudgeOutcome(Generic[T]):
    """``status`` is "ok" (``value`` set) or "unparseable" (``value`` None). ``raw`` is the last output;
    ``responses`` every call made (1 or 2), for tokens and cost; ``error`` the last parse error."""

    value: T | None
    status: Literal["ok", "unparseable"]
    raw: str
    responses: tuple[LLMResponse, ...] = ()
    error: str | None = None


def repair_request(request: LLMRequest, raw: str, error: str, format_hint: str) -> LLMRequest:
    """The original request, followed by the rejected output and a note asking for the format again.
    Chat: as an assistant turn and a user turn; completion: appended to the prompt, ending on the cue."""
    note = f"That reply could not be read ({error}). Reply again with only {format_hint}."
    if request.mode == "chat":
        assert request.messages is not None
        messages = (*request.messages, ChatMessage("assistant", raw), ChatMessage("user", note))
        return replace(request, messages=messages)
    assert request.prompt is not None
    return replace(request, prompt=f"{request.prompt} {raw.strip()}\n{note}\nJSON:")


def judge_call(
    client: LLMClient,
    template: PromptTemplate,
    parser: Callable[[str], T],
    *,
    model: str,
    values: Mapping[str, object],
    mode: Mode = "completion",
    constrain: Constrain = "grammar",
    temperature: float = 0.0,
    seed: int | None = None,
    use_cache: bool = True,
) -> JudgeOutcome[T]:
    """Call a judge and parse its output strictly; on failure retry once with a repair prompt.
    Provider errors (transient after retries, permanent, budget) propagate to the caller."""
    request = template.request(model, values, mode=mode, constrain=constrain, temperature=temperature, seed=seed)
    first = client.call(request, prompt_version=template.version_tag, use_cache=use_cache)
    try:
        return JudgeOutcome(parser(first.text), "ok", first.text, (first,))
    except UnparseableOutput as exc:
        error = str(exc)
    repair = repair_request(request, first.text, error, template.format_hint)
    second = client.call(repair, prompt_version=f"{template.version_tag}+{REPAIR_VERSION}", use_cache=use_cache)
    try:
        return JudgeOutcome(parser(second.text), "ok", second.text, (first, second))
    except UnparseableOutput as exc:
        return JudgeOutcome(None, "unparseable", second.text, (first, second), str(exc))
