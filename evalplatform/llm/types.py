"""One request type and one response type for every provider.

A request is either chat (``messages``) or completion (``prompt``), never both. ``canonical()`` is the
exact, JSON-able description of what is asked of the model: it feeds the content-addressed cache key,
so every field that can change the output (sampling parameters, seed, stop, grammar, schema) is in it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

Mode = Literal["chat", "completion"]
ROLES = ("system", "user", "assistant")


@dataclass(frozen=True)
class ChatMessage:
    role: str
    content: str

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"unknown chat role {self.role!r}; expected one of {ROLES}")


@dataclass(frozen=True)
class LLMRequest:
    """What is sent to a model. Exactly one of ``messages`` (chat) and ``prompt`` (completion)."""

    model: str
    messages: tuple[ChatMessage, ...] | None = None
    prompt: str | None = None
    temperature: float = 0.0
    top_p: float | None = None
    top_k: int | None = None
    max_tokens: int = 256
    seed: int | None = None
    stop: tuple[str, ...] = ()
    grammar: str | None = None  # GBNF, honoured by llama.cpp servers
    json_schema: dict[str, Any] | None = field(default=None, hash=False)

    def __post_init__(self) -> None:
        if (self.messages is None) == (self.prompt is None):
            raise ValueError("an LLMRequest takes exactly one of messages (chat) or prompt (completion)")
        if self.messages is not None:
            if not isinstance(self.messages, tuple):
                object.__setattr__(self, "messages", tuple(self.messages))
            if not self.messages:
                raise ValueError("a chat request needs at least one message")
        if not isinstance(self.stop, tuple):
            object.__setattr__(self, "stop", tuple(self.stop))
        if self.max_tokens < 1:
            raise ValueError("max_tokens must be at least 1")
        if self.temperature < 0:
            raise ValueError("temperature must be >= 0")

    @property
    def mode(self) -> Mode:
        return "chat" if self.messages is not None else "completion"

    def canonical(self) -> dict[str, Any]:
        """A JSON-able dict, keys sorted, that fully describes the request (the cache key's input)."""
        data: dict[str, Any] = {
            "model": self.model,
            "mode": self.mode,
            "messages": (
                [{"role": m.role, "content": m.content} for m in self.messages] if self.messages is not None else None
            ),
            "prompt": self.prompt,
            "temperature": float(self.temperature),
            "top_p": None if self.top_p is None else float(self.top_p),
            "top_k": self.top_k,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "stop": list(self.stop),
            "grammar": self.grammar,
            "json_schema": self.json_schema,
        }
        # Round-trip through JSON with sorted keys so nested dicts (the schema) are ordered too.
        result: dict[str, Any] = json.loads(json.dumps(data, sort_keys=True))
        return result

    def text_for_counting(self) -> str:
        """All prompt text, for rough token estimates."""
        if self.prompt is not None:
            return self.prompt
        assert self.messages is not None
        return "\n".join(m.content for m in self.messages)


@dataclass(frozen=True)
class LLMResponse:
    """What came back. ``cost_usd`` is filled in by the client (0 for a cache hit)."""

    text: str
    finish_reason: str | None
    input_tokens: int
    output_tokens: int
    latency_s: float
    raw: dict[str, Any] = field(default_factory=dict, hash=False)
    cached: bool = False
    cost_usd: float = 0.0

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> LLMResponse:
        data = json.loads(text)
        return cls(
            text=str(data["text"]),
            finish_reason=data.get("finish_reason"),
            input_tokens=int(data.get("input_tokens", 0)),
            output_tokens=int(data.get("output_tokens", 0)),
            latency_s=float(data.get("latency_s", 0.0)),
            raw=dict(data.get("raw") or {}),
            cached=bool(data.get("cached", False)),
            cost_usd=float(data.get("cost_usd", 0.0)),
        )

    def with_changes(self, **changes: Any) -> LLMResponse:
        return replace(self, **changes)
