"""The evaluators' prompts of CDK-E, in versioned sets. A run records the set it used in its spec
(``judge_prompts``), so that a finished run is re-judged exactly as it was; a new run takes ``CURRENT_JUDGE_PROMPTS``.

- ``"1"``: our first prompts. Acc, Cm and LAV are shown the question, the ground truth and the answer, not the
  context, each with its own short scale.
- ``"2"`` (current): as paper C describes its evaluators: they also see the context the candidate was shown
  (section 3.4), judge against the ground truth and that context and never against what they know of the
  world (the context was rewritten on purpose), and score Acc and Cm on one five-level rubric (Table 1:
  0, 0.25, 0.5, 0.75, 1). The levels' end points are the authors' own words ("0.0 - Completely incorrect;
  1.0 - Completely correct"); paper C's Table 1 text is not in this workspace, so the three middle levels are
  ours (docs/cdke.md). A wrong answer also gets an error type (paper C, error analysis).
- ``"authors"``: the prompts the authors published with the DKD (github.com/andrespimartin/Divergent-Knowledge-
  Dataset, prompts/CDK-E_Prompts.txt, commit 4f242a1, Apache License 2.0), word for word: Acc and Cm asked
  together in one call on a continuous 0-1 scale, LAV as 1 / 0, neither shown the context. Use it to
  reproduce Table 2 as its authors ran it.

FC's statement extraction and classification (RAGAS's answer_correctness, which the paper uses) are the same
in every set. Plain Python."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from evalplatform.llm.prompts.base import PromptTemplate
from evalplatform.runs.spec import DEFAULT_JUDGE_PROMPTS
from scoring.cdke import grammars as g
from scoring.cdke.verdicts import (
    parse_authors_acc_cm,
    parse_authors_lav,
    parse_lav,
    parse_scale,
)

# -- set "1" -------------------------------------------------------------------------------------------

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


# -- set "2": the paper's evaluators, shown the context, on one five-level rubric ----------------------

_JUDGE_AGAINST_THE_CONTEXT = """The context was rewritten on purpose: its facts may differ from the real world. \
Judge the answer only against the ground truth and the context, never against what you know of the world."""

# 0 / 0.25 / 0.5 / 0.75 / 1: the five levels of paper C's Table 1, shared by accuracy and completeness.
_ACCURACY_RUBRIC = """Accuracy: are the facts the answer states the facts of the ground truth?
1 = completely correct: every fact it states agrees with the ground truth.
0.75 = mostly correct: its main fact agrees with the ground truth; a secondary detail does not.
0.5 = partly correct: some of its facts agree with the ground truth and some contradict it.
0.25 = mostly incorrect: its main fact contradicts the ground truth; only a minor detail agrees.
0 = completely incorrect: nothing it states agrees with the ground truth."""

_COMPLETENESS_RUBRIC = """Completeness: how much of the ground truth does the answer give?
1 = completely: all of the ground truth.
0.75 = mostly: all but a secondary detail.
0.5 = partly: about half of it.
0.25 = barely: a small part of it.
0 = not at all: none of it."""

_CASE = """Context: $context
Question: $question
Ground truth: $ground_truth
Answer: $answer
JSON:"""


def _scale_template(name: str, rubric: str, example_score: str, example_answer: str) -> PromptTemplate:
    return PromptTemplate(
        name=name,
        version="2",
        fields=("context", "question", "ground_truth", "answer"),
        max_tokens=16,
        grammar=g.SCALE_GRAMMAR,
        json_schema=g.SCALE_SCHEMA,
        format_hint='one JSON object {"score": S} with S one of 0, 0.25, 0.5, 0.75, 1',
        text=f"""{_JUDGE_AGAINST_THE_CONTEXT}
Score the answer on this scale:
{rubric}

Context: The Larkfield bridge was designed by the engineer Marta Kowal and opened in 1931.
Question: Who designed the Larkfield bridge and when did it open?
Ground truth: Marta Kowal designed it; it opened in 1931.
Answer: {example_answer}
JSON: {{"score": {example_score}}}

{_CASE}""",
    )


SCORE_ACCURACY_V2 = _scale_template("score_accuracy", _ACCURACY_RUBRIC, "0.5", "Marta Kowal, in 1952.")
SCORE_COMPLETENESS_V2 = _scale_template("score_completeness", _COMPLETENESS_RUBRIC, "0.5", "Marta Kowal.")

VALIDATE_ANSWER_V2 = PromptTemplate(
    name="validate_answer",
    version="2",
    fields=("context", "question", "ground_truth", "answer"),
    max_tokens=16,
    grammar=g.LAV_GRAMMAR,
    json_schema=g.LAV_SCHEMA,
    format_hint='one JSON object {"verdict": "valid"} or {"verdict": "invalid"}',
    text=f"""{_JUDGE_AGAINST_THE_CONTEXT}
The answer is valid when it gives the essential information of the ground truth, as the context states it, and \
contradicts neither; wording may differ. Otherwise it is invalid.

Context: In 2004 the town of Ostervale moved its weekly market from Friday to Tuesday.
Question: On which day is the weekly market in Ostervale held?
Ground truth: Tuesday
Answer: It is held on Tuesdays.
JSON: {{"verdict": "valid"}}

Context: In 2004 the town of Ostervale moved its weekly market from Friday to Tuesday.
Question: On which day is the weekly market in Ostervale held?
Ground truth: Tuesday
Answer: Friday
JSON: {{"verdict": "invalid"}}

{_CASE}""",
)

# hallucination / context_misalignment / verbose: the error types of paper C's error analysis.
ERROR_TYPE = PromptTemplate(
    name="error_type",
    version="1",
    fields=("context", "question", "ground_truth", "answer"),
    max_tokens=24,
    grammar=g.ERROR_TYPE_GRAMMAR,
    json_schema=g.ERROR_TYPE_SCHEMA,
    format_hint='one JSON object {"error": E} with E one of "hallucination", "context_misalignment", "verbose"',
    text=f"""{_JUDGE_AGAINST_THE_CONTEXT}
The answer below does not give the ground truth. Say which error it makes:
hallucination: it states facts that are in neither the context nor the ground truth;
context_misalignment: it answers with facts other than the ones the context gives (the real-world fact the \
context changed, or another part of the context);
verbose: it holds the ground truth but buries it in so much that was not asked that it does not answer.

Context: In 2004 the town of Ostervale moved its weekly market from Friday to Tuesday.
Question: On which day is the weekly market in Ostervale held?
Ground truth: Tuesday
Answer: Friday
JSON: {{"error": "context_misalignment"}}

{_CASE}""",
)


# -- set "authors": the prompts published with the DKD, word for word ----------------------------------

AUTHORS_ACC_CM = PromptTemplate(
    name="authors_accuracy_completeness",
    version="1",
    fields=("question", "ground_truth", "answer"),
    max_tokens=24,
    grammar=g.AUTHORS_ACC_CM_GRAMMAR,
    format_hint="two lines, 'Accuracy: <score>' and 'Completeness: <score>', each score from 0.0 to 1.0",
    text="""You are provided with a question, the ground-truth answer, and the LLM-generated answer. Evaluate \
based on alignment with ground-truth, without considering factual correctness.

Evaluation Criteria:
Accuracy and Completeness.

Scoring Scale:
0.0 - Completely incorrect; 1.0 - Completely correct.

Question:
$question
Ground Truth Answer:
$ground_truth
LLM-Generated Answer:
$answer

Provide evaluation as:
Accuracy: <score>
Completeness: <score>""",
)

AUTHORS_LAV = PromptTemplate(
    name="authors_validate_answer",
    version="1",
    fields=("question", "ground_truth", "answer"),
    max_tokens=8,
    grammar=g.AUTHORS_LAV_GRAMMAR,
    format_hint="one line, 'LAV: 1' (valid) or 'LAV: 0'",
    text="""You are provided with a question, the ground-truth answer, and the LLM-generated answer. Evaluate \
for validity based on alignment with the ground-truth.

Scoring:
1 - Valid, 0 - Otherwise.

Question:
$question
Ground Truth Answer:
$ground_truth
LLM-Generated Answer:
$answer

Provide evaluation as:
LAV: <score>""",
)


@dataclass(frozen=True)
class JudgePrompts:
    """One version of the evaluators' prompts and the parsers of their outputs. Acc and Cm are asked in two
    calls (``accuracy``, ``completeness``) or in one (``accuracy_and_completeness``); ``error_type`` (None: not
    asked) classifies the answers LAV found invalid."""

    version: str
    extract: PromptTemplate
    classify: PromptTemplate
    validate: PromptTemplate
    parse_validate: Callable[[str], bool]
    with_context: bool
    accuracy: PromptTemplate | None = None
    completeness: PromptTemplate | None = None
    parse_scale: Callable[[str], float] | None = None
    accuracy_and_completeness: PromptTemplate | None = None
    parse_accuracy_and_completeness: Callable[[str], tuple[float, float]] | None = None
    error_type: PromptTemplate | None = None

    @property
    def templates(self) -> tuple[PromptTemplate, ...]:
        candidates: tuple[Any, ...] = (
            self.extract,
            self.classify,
            self.accuracy,
            self.completeness,
            self.accuracy_and_completeness,
            self.validate,
            self.error_type,
        )
        return tuple(t for t in candidates if t is not None)

    @property
    def calls_per_answer(self) -> int:
        """Judge calls per scored answer: answer statements, classification, Acc and Cm (one or two), LAV (the
        ground truth's statements are extracted once per question; the error type only for invalid answers)."""
        return self.calls_for(("fc", "ac", "acc", "cm", "lav"))

    def calls_for(self, metrics: Sequence[str]) -> int:
        """Judge calls per scored answer for these metrics: FC and AC share two (the answer's statements and their
        classification), Acc and Cm one each (one for both in a combined prompt), LAV one."""
        calls = 2 if ("fc" in metrics or "ac" in metrics) else 0
        wanted = ("acc" in metrics) + ("cm" in metrics)
        if wanted:
            calls += 1 if self.accuracy_and_completeness is not None else wanted
        return calls + (1 if "lav" in metrics else 0)


JUDGE_PROMPT_SETS: dict[str, JudgePrompts] = {
    "1": JudgePrompts(
        version="1",
        extract=EXTRACT_STATEMENTS,
        classify=CLASSIFY_STATEMENTS,
        validate=VALIDATE_ANSWER,
        parse_validate=parse_lav,
        with_context=False,
        accuracy=SCORE_ACCURACY,
        completeness=SCORE_COMPLETENESS,
        parse_scale=parse_scale,
    ),
    "2": JudgePrompts(
        version="2",
        extract=EXTRACT_STATEMENTS,
        classify=CLASSIFY_STATEMENTS,
        validate=VALIDATE_ANSWER_V2,
        parse_validate=parse_lav,
        with_context=True,
        accuracy=SCORE_ACCURACY_V2,
        completeness=SCORE_COMPLETENESS_V2,
        parse_scale=parse_scale,
        error_type=ERROR_TYPE,
    ),
    "authors": JudgePrompts(
        version="authors",
        extract=EXTRACT_STATEMENTS,
        classify=CLASSIFY_STATEMENTS,
        validate=AUTHORS_LAV,
        parse_validate=parse_authors_lav,
        with_context=False,
        accuracy_and_completeness=AUTHORS_ACC_CM,
        parse_accuracy_and_completeness=parse_authors_acc_cm,
        error_type=ERROR_TYPE,
    ),
}

# The set new runs take (the spec's default names it).
CURRENT_JUDGE_PROMPTS = DEFAULT_JUDGE_PROMPTS
