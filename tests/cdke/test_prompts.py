from __future__ import annotations

import json
from dataclasses import replace

import pytest

from scoring.cdke import grammars as g
from scoring.cdke import verdicts as judges
from scoring.cdke.judge_prompts import SCORE_ACCURACY, VALIDATE_ANSWER
from scoring.cdke.prompts import ANSWER_WITH_CONTEXT, answer_template, answer_values
from scoring.cdke.prompts import CDKE_PROMPTS as REGISTRY


def test_registry_names_are_unique_and_version_tags_carry_the_hash() -> None:
    assert len(REGISTRY) == 10  # 2 generator, 2 answer, 6 evaluator prompts (set "2")
    for name, template in REGISTRY.items():
        assert template.name == name
        assert template.version_tag == f"{name}@{template.version}#{template.prompt_hash[:12]}"


def test_editing_a_template_without_bumping_its_version_changes_its_hash() -> None:
    edited = replace(SCORE_ACCURACY, text=SCORE_ACCURACY.text + " ")
    assert edited.version == SCORE_ACCURACY.version
    assert edited.prompt_hash != SCORE_ACCURACY.prompt_hash


def test_render_rejects_missing_and_unknown_fields() -> None:
    with pytest.raises(ValueError, match="missing fields \\['answer'\\]"):
        SCORE_ACCURACY.render(question="q", ground_truth="g")
    with pytest.raises(ValueError, match="unknown fields \\['extra'\\]"):
        SCORE_ACCURACY.render(question="q", ground_truth="g", answer="a", extra="x")


def test_values_with_dollar_signs_and_braces_are_inserted_verbatim() -> None:
    text = SCORE_ACCURACY.render(question="Cost in $USD?", ground_truth="{x}", answer="$5")
    assert "Question: Cost in $USD?\nGround truth: {x}\nAnswer: $5\nJSON:" in text


def test_answer_prompt_puts_context_before_question_and_ends_on_the_answer_cue() -> None:
    values = answer_values("divergent", "Who founded the town?", "The town was\nfounded by Ana Ruiz.")
    text = answer_template("divergent").render(**values)
    assert text.endswith("Context: The town was founded by Ana Ruiz.\nQuestion: Who founded the town?\nAnswer:")
    assert text.count("Context:") == 3  # two worked examples, then the real one
    assert ANSWER_WITH_CONTEXT.stop == ("\n",)


def test_questions_of_one_context_share_the_prompt_prefix_up_to_the_question() -> None:
    context = "The town was founded by Ana Ruiz in 1802."
    first = ANSWER_WITH_CONTEXT.render(**answer_values("divergent", "Who founded the town?", context))
    second = ANSWER_WITH_CONTEXT.render(**answer_values("divergent", "When was the town founded?", context))
    prefix_end = first.rindex("\nQuestion: ")
    assert second[:prefix_end] == first[:prefix_end]
    assert first[:prefix_end].endswith(context)


def test_closed_book_condition_has_no_context_and_others_require_one() -> None:
    text = answer_template("none").render(**answer_values("none", "Who?", None))
    assert "Context:" not in text and text.endswith("Question: Who?\nAnswer:")
    with pytest.raises(ValueError):
        answer_values("real", "Who?", None)
    with pytest.raises(ValueError):
        answer_template("imagined")  # type: ignore[arg-type]


def test_request_carries_grammar_or_schema_as_asked() -> None:
    values = {"question": "q", "ground_truth": "g", "answer": "a"}
    grammar_only = VALIDATE_ANSWER.request("m", values)
    assert grammar_only.mode == "completion" and grammar_only.grammar == g.LAV_GRAMMAR
    assert grammar_only.json_schema is None and grammar_only.max_tokens == 16
    chat = VALIDATE_ANSWER.request("m", values, mode="chat", constrain="json_schema", seed=3)
    assert chat.mode == "chat" and chat.grammar is None and chat.json_schema == g.LAV_SCHEMA
    assert chat.seed == 3


@pytest.mark.parametrize(
    ("template_name", "parser"),
    [
        ("extract_statements", judges.parse_statements),
        ("classify_statements", judges.parse_classification),
        ("score_accuracy", judges.parse_scale),
        ("score_completeness", judges.parse_scale),
        ("validate_answer", judges.parse_lav),
    ],
)
def test_every_worked_example_in_a_judge_prompt_parses_with_its_parser(template_name: str, parser: object) -> None:
    template = REGISTRY[template_name]
    examples = [line[len("JSON: ") :] for line in template.text.splitlines() if line.startswith("JSON: {")]
    assert examples
    for example in examples:
        parser(example)  # type: ignore[operator]


def test_schema_and_grammar_describe_the_same_keys() -> None:
    pairs = [
        (g.STATEMENTS_SCHEMA, g.STATEMENTS_GRAMMAR),
        (g.CLASSIFICATION_SCHEMA, g.CLASSIFICATION_GRAMMAR),
        (g.SCALE_SCHEMA, g.SCALE_GRAMMAR),
        (g.LAV_SCHEMA, g.LAV_GRAMMAR),
        (g.FABRICATION_SCHEMA, g.FABRICATION_GRAMMAR),
        (g.QUESTIONS_SCHEMA, g.QUESTIONS_GRAMMAR),
    ]
    for schema, grammar in pairs:
        for key in schema["required"]:
            assert f'\\"{key}\\"' in grammar
        json.dumps(schema)
