"""Every prompt of CDK-E, versioned (a prompt's ``version_tag`` is stored with every call and cache entry):

- the generator's: fabricate a divergent context from a real text, write questions about it (paper C, 3.1-3.2);
- the candidates': answer with the context injected (divergent or real) or closed book, as a two-shot
  completion prompt that base models such as gemma-3-270m follow; the shared context comes before the
  question so that servers with a prefix cache reuse it across a context's questions, and generation stops
  at the newline; the examples use invented facts, so that they teach the format, not world knowledge;
- the evaluators' are in ``scoring.cdke.judge_prompts``, in versioned sets (the one a run uses is in its spec).

Each structured prompt carries a GBNF grammar (llama.cpp) and a JSON schema (``scoring.cdke.grammars``) and has a
strict parser (``scoring.cdke.verdicts``). ``CDKE_PROMPTS`` maps each name to its current template. Plain Python."""

from __future__ import annotations

from typing import Literal

from evalplatform.llm.prompts.base import PromptTemplate
from scoring.cdke import grammars as g
from scoring.cdke.judge_prompts import CURRENT_JUDGE_PROMPTS, JUDGE_PROMPT_SETS

# -- the generator -------------------------------------------------------------------------------------

FABRICATE_CONTEXT = PromptTemplate(
    name="fabricate_context",
    version="1",
    fields=("source_text", "n_alterations"),
    max_tokens=2048,
    grammar=g.FABRICATION_GRAMMAR,
    json_schema=g.FABRICATION_SCHEMA,
    format_hint=(
        'one JSON object {"divergent_text": "...", "alterations": '
        '[{"kind": "date|name|place|sequence|event", "original": "...", "divergent": "..."}]}'
    ),
    text="""You rewrite factual articles into plausible but false versions, used to test whether a reader \
answers from the text in front of it or from memory.

Rewrite the article below. Change about $n_alterations facts that a well-read person would know: \
dates, names of people or organisations, places, the order in which things happened, or the events \
themselves. Keep the style, length and structure; keep every changed fact consistent everywhere it \
appears; change nothing else. Do not mark or explain the changes inside the text.

Return one JSON object and nothing else:
{"divergent_text": "<the rewritten article>", "alterations": [{"kind": "date", "original": "<fact as \
in the article>", "divergent": "<fact as rewritten>"}]}
"kind" is one of date, name, place, sequence, event. List every change.

Article:
$source_text

JSON:""",
)

GENERATE_QUESTIONS = PromptTemplate(
    name="generate_questions",
    version="1",
    fields=("divergent_text", "alterations", "n_questions"),
    max_tokens=2048,
    grammar=g.QUESTIONS_GRAMMAR,
    json_schema=g.QUESTIONS_SCHEMA,
    format_hint='one JSON object {"questions": [{"question": "...", "ground_truth": "..."}]}',
    text="""Below is a text in which some facts were deliberately changed, with the list of changes.

Write $n_questions questions about the text. Each question must be answerable from the text alone, and \
its correct answer must depend on at least one changed fact, so that someone answering from general \
knowledge instead of the text gets it wrong. Each question asks for one thing and stands on its own \
(no "in the text" or "according to the passage"). For each, give a short ground-truth answer taken \
from the text.

Text:
$divergent_text

Changed facts (original -> in the text):
$alterations

Return one JSON object and nothing else:
{"questions": [{"question": "...", "ground_truth": "..."}]}

JSON:""",
)


def format_alterations(alterations: list[tuple[str, str]]) -> str:
    """One ``- original -> divergent`` line per alteration, for ``GENERATE_QUESTIONS``."""
    return "\n".join(f"- {original} -> {divergent}" for original, divergent in alterations)


# -- the candidates ------------------------------------------------------------------------------------

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


CDKE_PROMPTS: dict[str, PromptTemplate] = {
    t.name: t
    for t in (
        FABRICATE_CONTEXT,
        GENERATE_QUESTIONS,
        ANSWER_WITH_CONTEXT,
        ANSWER_CLOSED_BOOK,
        *JUDGE_PROMPT_SETS[CURRENT_JUDGE_PROMPTS].templates,
    )
}
