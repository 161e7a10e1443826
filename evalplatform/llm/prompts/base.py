"""Versioned prompt templates.

A template is text with ``$field`` placeholders (``string.Template``, so JSON braces in examples need no
escaping). Its ``prompt_hash`` covers everything that shapes the output (name, version, text, stop,
grammar, schema, max_tokens) and ``version_tag`` goes into the response-cache key: editing a template
without bumping its version still changes the hash, so stale cached answers are never reused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from string import Template
from typing import Any, Literal

from evalplatform.hashing import text_hash
from evalplatform.llm.types import ChatMessage, LLMRequest, Mode

Constrain = Literal["grammar", "json_schema", "both", "none"]


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    version: str
    text: str
    fields: tuple[str, ...]
    stop: tuple[str, ...] = ()
    max_tokens: int = 256
    grammar: str | None = None
    json_schema: dict[str, Any] | None = field(default=None, hash=False)
    format_hint: str = ""  # one line describing the expected output, quoted by the repair prompt

    @property
    def prompt_hash(self) -> str:
        payload = json.dumps(
            {
                "name": self.name,
                "version": self.version,
                "text": self.text,
                "fields": list(self.fields),
                "stop": list(self.stop),
                "max_tokens": self.max_tokens,
                "grammar": self.grammar,
                "json_schema": self.json_schema,
                "format_hint": self.format_hint,
            },
            sort_keys=True,
        )
        return text_hash(payload)

    @property
    def version_tag(self) -> str:
        """``name@version#hash12``: the prompt version recorded with every call and cache entry."""
        return f"{self.name}@{self.version}#{self.prompt_hash[:12]}"

    def render(self, **values: object) -> str:
        missing = [name for name in self.fields if name not in values]
        unknown = [name for name in values if name not in self.fields]
        if missing or unknown:
            raise ValueError(f"template {self.name}: missing fields {missing}, unknown fields {unknown}")
        return Template(self.text).substitute({key: str(value) for key, value in values.items()})

    def render_messages(self, **values: object) -> tuple[ChatMessage, ...]:
        return (ChatMessage("user", self.render(**values)),)

    def request(
        self,
        model: str,
        values: Mapping[str, object],
        *,
        mode: Mode = "completion",
        constrain: Constrain = "grammar",
        temperature: float = 0.0,
        top_p: float | None = None,
        top_k: int | None = None,
        seed: int | None = None,
        max_tokens: int | None = None,
    ) -> LLMRequest:
        """An ``LLMRequest`` for this template. ``constrain`` picks the output constraint sent: the GBNF
        grammar (llama.cpp), the JSON schema (servers with structured output), both, or none."""
        text = self.render(**values)
        use_grammar = constrain in ("grammar", "both")
        use_schema = constrain in ("json_schema", "both")
        return LLMRequest(
            model=model,
            messages=(ChatMessage("user", text),) if mode == "chat" else None,
            prompt=text if mode == "completion" else None,
            temperature=temperature,
            top_p=top_p,
            top_k=top_k,
            max_tokens=max_tokens or self.max_tokens,
            seed=seed,
            stop=self.stop,
            grammar=self.grammar if use_grammar else None,
            json_schema=self.json_schema if use_schema else None,
        )
