"""Candidate answering, as a two-shot completion prompt (works for base models such as gemma-3-270m).

Layout: a fixed preamble and two worked examples, then ``Context: …`` (the shared context comes
before the question so that servers with a prefix cache reuse it across a context's questions), then
``Question: …`` and ``Answer:``; generation stops at the newline. The examples use invented facts so
that they teach the format, not world knowledge. Conditions: ``divergent`` (the method) and ``real``
(the control) inject a context; ``none`` is closed book.
"""

from __future__ import annotations

from typing import Literal

from evalplatform.llm.prompts.base import PromptTemplate

Condition = Literal["divergent", "real", "none"]
CONDITIONS: tuple[Condition, ...] = ("divergent", "real", "none")

_WITH_CONTEXT = """Answer each question with a short phrase taken from its context.

Context: The Larkfield bridge was opened in 1931. It was designed by the engineer Marta Kowal.
Question: Who designed the Larkfield bridge?
Answer: Marta Kowal

Context: In 2004 the town of Ostervale moved its weekly market from Friday to Tuesday.
Question: On which day is the weekly market in Ostervale held?
Answer: Tuesday

Context: $context
Question: $question
Answer:"""

_CLOSED_BOOK = """Answer each question with a short phrase.

Question: What is the chemical symbol of gold?
Answer: Au

Question: How many days are there in a leap year?
Answer: 366

Question: $question
Answer:"""

ANSWER_WITH_CONTEXT = PromptTemplate(
    name="answer_with_context",
    version="1",
    fields=("context", "question"),
    stop=("\n",),
    max_tokens=64,
    text=_WITH_CONTEXT,
)

ANSWER_CLOSED_BOOK = PromptTemplate(
    name="answer_closed_book",
    version="1",
    fields=("question",),
    stop=("\n",),
    max_tokens=64,
    text=_CLOSED_BOOK,
)


def answer_template(condition: Condition) -> PromptTemplate:
    if condition not in CONDITIONS:
        raise ValueError(f"unknown condition {condition!r}; expected one of {CONDITIONS}")
    return ANSWER_CLOSED_BOOK if condition == "none" else ANSWER_WITH_CONTEXT


def answer_values(condition: Condition, question: str, context: str | None) -> dict[str, object]:
    """The template values for a condition: the context (divergent or real text) unless closed book."""
    if condition == "none":
        return {"question": question.strip()}
    if not context:
        raise ValueError(f"condition {condition!r} needs a context")
    # One line per field keeps the Context/Question/Answer pattern the examples teach.
    return {"context": " ".join(context.split()), "question": question.strip()}
