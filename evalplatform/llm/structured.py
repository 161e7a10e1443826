"""One structured call: ask for one JSON object of a fixed shape, parse it strictly, repair once, then
"unparseable".

The methods' outputs (a judge's verdict, a generator's rewritten text) are each one JSON object of a fixed
shape, which their grammars and schemas produce exactly. ``load_json_object`` accepts surrounding whitespace
and one Markdown code fence around the object (chat models add them when no schema is enforced) and nothing
else: no extra keys, no prose. A method's parser raises ``UnparseableOutput`` with the raw text;
``structured_call`` then retries once with a repair prompt, and returns ``StructuredOutcome(value=None,
status="unparseable", raw=...)`` when that fails too, so that the caller can store, count and show it --
never a 0.
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
from evalplatform.llm.types import ChatMessage, LLMRequest, LLMResponse, Mode

T = TypeVar("T")
_FENCE = re.compile(r"^```(?:json)?\s*\n?(.*?)\n?\s*```$", re.DOTALL)
REPAIR_VERSION = "repair@1"


def load_json_object(raw: str, keys: tuple[str, ...]) -> dict[str, Any]:
    """The one JSON object ``raw`` holds, with exactly ``keys``; ``UnparseableOutput`` otherwise."""
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


def string_list(value: object, key: str, raw: str) -> tuple[str, ...]:
    """``value`` as a tuple of non-empty, stripped strings; ``UnparseableOutput`` otherwise."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise UnparseableOutput(f"{key} must be a list of strings", raw=raw)
    items = tuple(item.strip() for item in value)
    if any(not item for item in items):
        raise UnparseableOutput(f"{key} contains an empty string", raw=raw)
    return items


@dataclass(frozen=True)
class StructuredOutcome(Generic[T]):
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


def structured_call(
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
) -> StructuredOutcome[T]:
    """Call a model and parse its output strictly; on failure retry once with a repair prompt.
    Provider errors (transient after retries, permanent, budget) propagate to the caller."""
    request = template.request(model, values, mode=mode, constrain=constrain, temperature=temperature, seed=seed)
    first = client.call(request, prompt_version=template.version_tag, use_cache=use_cache)
    try:
        return StructuredOutcome(parser(first.text), "ok", first.text, (first,))
    except UnparseableOutput as exc:
        error = str(exc)
    repair = repair_request(request, first.text, error, template.format_hint)
    second = client.call(repair, prompt_version=f"{template.version_tag}+{REPAIR_VERSION}", use_cache=use_cache)
    try:
        return StructuredOutcome(parser(second.text), "ok", second.text, (first, second))
    except UnparseableOutput as exc:
        return StructuredOutcome(None, "unparseable", second.text, (first, second), str(exc))
