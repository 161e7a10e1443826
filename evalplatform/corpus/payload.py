"""The neutral, validated form of an imported dataset, before anything is written."""

from dataclasses import dataclass, field
from typing import Any


@dataclass
class AlterationData:
    field: str
    original: str
    divergent: str


@dataclass
class QuestionData:
    key: str
    text: str
    ground_truth: str
    original_answer: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class ContextData:
    key: str
    text: str
    topic: str = ""
    source_text: str = ""
    alterations: list[AlterationData] = field(default_factory=list)
    questions: list[QuestionData] = field(default_factory=list)


@dataclass
class PairData:
    key: str
    text_a: str
    text_b: str
    label: int | None = None
    score: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class DatasetPayload:
    kind: str
    name: str = ""
    contexts: list[ContextData] = field(default_factory=list)
    pairs: list[PairData] = field(default_factory=list)
    source: str = ""
    licence: str = ""
    description: str = ""

    @property
    def question_count(self) -> int:
        return sum(len(c.questions) for c in self.contexts)

    @property
    def alteration_count(self) -> int:
        return sum(len(c.alterations) for c in self.contexts)
