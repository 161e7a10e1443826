"""Prompts for the generator model: divergent context fabrication and question generation (CDK-E)."""

from __future__ import annotations

from evalplatform.llm.prompts import grammars as g
from evalplatform.llm.prompts.base import PromptTemplate

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
