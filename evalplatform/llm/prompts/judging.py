"""Evaluator prompts for the CDK-E judge metrics: statement extraction and TP/FP/FN classification
(for FC inside AC), accuracy and completeness on the 0/0.25/0.5/0.75/1 scale, and LAV (valid / not
valid). Each ends with a ``JSON:`` cue, carries a GBNF grammar (llama.cpp) and a JSON schema, and has a
strict parser in ``evalplatform.llm.judges``. Our own wording; the papers' prompts are not public."""

from __future__ import annotations

from evalplatform.llm.prompts import grammars as g
from evalplatform.llm.prompts.base import PromptTemplate

EXTRACT_STATEMENTS = PromptTemplate(
    name="extract_statements",
    version="1",
    fields=("question", "text"),
    max_tokens=512,
    grammar=g.STATEMENTS_GRAMMAR,
    json_schema=g.STATEMENTS_SCHEMA,
    format_hint='one JSON object {"statements": ["...", "..."]}',
    text="""Split an answer into atomic statements: short, self-contained sentences that each state one \
fact, with pronouns replaced by what they refer to. Use the question to make each statement complete.

Question: When and where was the Larkfield bridge opened?
Answer: It opened in 1931 in Dunmore.
JSON: {"statements": ["The Larkfield bridge was opened in 1931.", "The Larkfield bridge was opened in \
Dunmore."]}

Question: $question
Answer: $text
JSON:""",
)

CLASSIFY_STATEMENTS = PromptTemplate(
    name="classify_statements",
    version="1",
    fields=("question", "answer_statements", "truth_statements"),
    max_tokens=768,
    grammar=g.CLASSIFICATION_GRAMMAR,
    json_schema=g.CLASSIFICATION_SCHEMA,
    format_hint='one JSON object {"TP": [...], "FP": [...], "FN": [...]} of statement strings',
    text="""Compare the statements of an answer with the statements of the ground truth for a question.
TP: answer statements that the ground truth supports.
FP: answer statements that the ground truth does not support.
FN: ground-truth statements that no answer statement covers.
Every answer statement goes in TP or FP; every uncovered ground-truth statement goes in FN.

Question: When and where was the Larkfield bridge opened?
Answer statements: ["The Larkfield bridge was opened in 1931.", "The Larkfield bridge was opened in \
Mallow."]
Ground-truth statements: ["The Larkfield bridge was opened in 1931.", "The Larkfield bridge was opened \
in Dunmore."]
JSON: {"TP": ["The Larkfield bridge was opened in 1931."], "FP": ["The Larkfield bridge was opened in \
Mallow."], "FN": ["The Larkfield bridge was opened in Dunmore."]}

Question: $question
Answer statements: $answer_statements
Ground-truth statements: $truth_statements
JSON:""",
)

_SCALE = """Scale: 1 = fully, 0.75 = mostly, 0.5 = partly, 0.25 = barely, 0 = not at all."""

SCORE_ACCURACY = PromptTemplate(
    name="score_accuracy",
    version="1",
    fields=("question", "ground_truth", "answer"),
    max_tokens=16,
    grammar=g.SCALE_GRAMMAR,
    json_schema=g.SCALE_SCHEMA,
    format_hint='one JSON object {"score": S} with S one of 0, 0.25, 0.5, 0.75, 1',
    text=f"""Rate how accurate the answer is: do the facts it states agree with the ground truth? \
Facts that contradict the ground truth lower the score; missing facts do not.
{_SCALE}

Question: Who designed the Larkfield bridge and when did it open?
Ground truth: Marta Kowal designed it; it opened in 1931.
Answer: Marta Kowal, in 1952.
JSON: {{"score": 0.5}}

Question: $question
Ground truth: $ground_truth
Answer: $answer
JSON:""",
)

SCORE_COMPLETENESS = PromptTemplate(
    name="score_completeness",
    version="1",
    fields=("question", "ground_truth", "answer"),
    max_tokens=16,
    grammar=g.SCALE_GRAMMAR,
    json_schema=g.SCALE_SCHEMA,
    format_hint='one JSON object {"score": S} with S one of 0, 0.25, 0.5, 0.75, 1',
    text=f"""Rate how complete the answer is: how much of the ground truth does it cover? \
Wrong extra facts do not lower this score; missing parts do.
{_SCALE}

Question: Who designed the Larkfield bridge and when did it open?
Ground truth: Marta Kowal designed it; it opened in 1931.
Answer: Marta Kowal.
JSON: {{"score": 0.5}}

Question: $question
Ground truth: $ground_truth
Answer: $answer
JSON:""",
)

VALIDATE_ANSWER = PromptTemplate(
    name="validate_answer",
    version="1",
    fields=("question", "ground_truth", "answer"),
    max_tokens=16,
    grammar=g.LAV_GRAMMAR,
    json_schema=g.LAV_SCHEMA,
    format_hint='one JSON object {"verdict": "valid"} or {"verdict": "invalid"}',
    text="""Decide whether the answer to the question is valid: it gives the same essential information \
as the ground truth and contradicts it nowhere. Wording may differ.

Question: On which day is the weekly market in Ostervale held?
Ground truth: Tuesday
Answer: It is held on Tuesdays.
JSON: {"verdict": "valid"}

Question: On which day is the weekly market in Ostervale held?
Ground truth: Tuesday
Answer: Friday
JSON: {"verdict": "invalid"}

Question: $question
Ground truth: $ground_truth
Answer: $answer
JSON:""",
)
