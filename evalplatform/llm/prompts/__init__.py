"""Versioned prompt templates; ``REGISTRY`` maps each template name to its current version."""

from __future__ import annotations

from evalplatform.llm.prompts.answering import (
    ANSWER_CLOSED_BOOK,
    ANSWER_WITH_CONTEXT,
    CONDITIONS,
    Condition,
    answer_template,
    answer_values,
)
from evalplatform.llm.prompts.base import Constrain, PromptTemplate
from evalplatform.llm.prompts.generation import FABRICATE_CONTEXT, GENERATE_QUESTIONS, format_alterations
from evalplatform.llm.prompts.judging import (
    CLASSIFY_STATEMENTS,
    EXTRACT_STATEMENTS,
    SCORE_ACCURACY,
    SCORE_COMPLETENESS,
    VALIDATE_ANSWER,
)

REGISTRY: dict[str, PromptTemplate] = {
    t.name: t
    for t in (
        FABRICATE_CONTEXT,
        GENERATE_QUESTIONS,
        ANSWER_WITH_CONTEXT,
        ANSWER_CLOSED_BOOK,
        EXTRACT_STATEMENTS,
        CLASSIFY_STATEMENTS,
        SCORE_ACCURACY,
        SCORE_COMPLETENESS,
        VALIDATE_ANSWER,
    )
}

__all__ = [
    "ANSWER_CLOSED_BOOK",
    "ANSWER_WITH_CONTEXT",
    "CLASSIFY_STATEMENTS",
    "CONDITIONS",
    "EXTRACT_STATEMENTS",
    "FABRICATE_CONTEXT",
    "GENERATE_QUESTIONS",
    "REGISTRY",
    "SCORE_ACCURACY",
    "SCORE_COMPLETENESS",
    "VALIDATE_ANSWER",
    "Condition",
    "Constrain",
    "PromptTemplate",
    "answer_template",
    "answer_values",
    "format_alterations",
]
