from __future__ import annotations

import pytest

from evalplatform.llm.client import LLMClient
from evalplatform.llm.errors import UnparseableOutput
from evalplatform.llm.providers.openai_provider import OpenAIProvider
from evalplatform.llm.retry import NO_RETRY
from evalplatform.llm.structured import structured_call
from scoring.cdke.judge_prompts import SCORE_ACCURACY, VALIDATE_ANSWER
from scoring.cdke.verdicts import (
    Classification,
    parse_classification,
    parse_fabrication,
    parse_lav,
    parse_questions,
    parse_scale,
    parse_statements,
)
from tests.llm.fake_openai_server import FakeOpenAIServer, ok

VALUES = {"question": "Which day?", "ground_truth": "Tuesday", "answer": "Friday"}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"score": 0.75}', 0.75),
        (' {"score": 1}\n', 1.0),
        ('{"score": 0}', 0.0),
        ('```json\n{"score": 0.25}\n```', 0.25),
    ],
)
def test_parse_scale_accepts_the_five_points(raw: str, expected: float) -> None:
    assert parse_scale(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        '{"score": 0.3}',
        '{"score": "0.5"}',
        '{"score": true}',
        '{"score": 0.5, "why": "x"}',
        "0.5",
        'Score: {"score": 0.5}',
        '{"score": 1.5}',
        "",
    ],
)
def test_parse_scale_rejects_anything_off_the_scale_or_shape(raw: str) -> None:
    with pytest.raises(UnparseableOutput) as info:
        parse_scale(raw)
    assert info.value.raw == raw


def test_parse_lav_maps_valid_and_invalid() -> None:
    assert parse_lav('{"verdict": "valid"}') is True
    assert parse_lav('{"verdict": "Invalid"}') is False
    for raw in ('{"verdict": "maybe"}', '{"verdict": 1}', "valid", '{"valid": true}'):
        with pytest.raises(UnparseableOutput):
            parse_lav(raw)


def test_parse_statements_strips_and_rejects_non_strings() -> None:
    assert parse_statements('{"statements": [" A was born in 1900. ", "B"]}') == ("A was born in 1900.", "B")
    assert parse_statements('{"statements": []}') == ()
    for raw in ('{"statements": [1]}', '{"statements": [""]}', '{"statements": "A"}', '["A"]'):
        with pytest.raises(UnparseableOutput):
            parse_statements(raw)


def test_parse_classification_returns_three_lists() -> None:
    parsed = parse_classification('{"TP": ["a"], "FP": [], "FN": ["b", "c"]}')
    assert parsed == Classification(tp=("a",), fp=(), fn=("b", "c"))
    with pytest.raises(UnparseableOutput):
        parse_classification('{"TP": ["a"], "FP": []}')


def test_parse_fabrication_and_questions() -> None:
    fab = parse_fabrication(
        '{"divergent_text": "Born in 1910.", '
        '"alterations": [{"kind": "date", "original": "1905", "divergent": "1910"}]}'
    )
    assert fab.divergent_text == "Born in 1910." and fab.alterations[0].divergent == "1910"
    with pytest.raises(UnparseableOutput):
        parse_fabrication(
            '{"divergent_text": "x", "alterations": [{"kind": "mood", "original": "a", "divergent": "b"}]}'
        )
    questions = parse_questions('{"questions": [{"question": "When?", "ground_truth": "1910"}]}')
    assert [(q.question, q.ground_truth) for q in questions] == [("When?", "1910")]
    with pytest.raises(UnparseableOutput):
        parse_questions('{"questions": []}')


def _client(server: FakeOpenAIServer) -> LLMClient:
    return LLMClient(OpenAIProvider(base_url=server.base_url), endpoint_name="fake", retry_policy=NO_RETRY)


def test_judge_call_parses_a_good_output_in_one_call(fake_server: FakeOpenAIServer) -> None:
    fake_server.script(ok('{"verdict": "invalid"}'))
    outcome = structured_call(_client(fake_server), VALIDATE_ANSWER, parse_lav, model="m", values=VALUES)
    assert (outcome.value, outcome.status, len(outcome.responses)) == (False, "ok", 1)
    assert fake_server.requests[0]["body"]["grammar"] == VALIDATE_ANSWER.grammar


def test_judge_call_repairs_once_then_succeeds(fake_server: FakeOpenAIServer) -> None:
    fake_server.script(ok("I think it is quite good"), ok('{"score": 0.5}'))
    outcome = structured_call(_client(fake_server), SCORE_ACCURACY, parse_scale, model="m", values=VALUES)
    assert (outcome.value, outcome.status, outcome.raw) == (0.5, "ok", '{"score": 0.5}')
    repair_prompt = fake_server.requests[1]["body"]["prompt"]
    assert repair_prompt.startswith(fake_server.requests[0]["body"]["prompt"])  # same prefix: cache-friendly
    assert "I think it is quite good" in repair_prompt and repair_prompt.endswith("JSON:")


def test_judge_call_marks_garbage_unparseable_after_one_repair_never_zero(
    fake_server: FakeOpenAIServer,
) -> None:
    fake_server.script(ok("garbage"), ok("more garbage"), ok('{"score": 1}'))
    outcome = structured_call(_client(fake_server), SCORE_ACCURACY, parse_scale, model="m", values=VALUES)
    assert outcome.value is None
    assert outcome.status == "unparseable"
    assert outcome.raw == "more garbage"
    assert outcome.error is not None and "not a JSON object" in outcome.error
    assert len(fake_server.requests) == 2  # exactly one repair, never a third call


def test_judge_call_in_chat_mode_repairs_with_an_assistant_and_a_user_turn(
    fake_server: FakeOpenAIServer,
) -> None:
    fake_server.script(ok("nope"), ok('{"verdict": "valid"}'))
    outcome = structured_call(
        _client(fake_server),
        VALIDATE_ANSWER,
        parse_lav,
        model="m",
        values=VALUES,
        mode="chat",
        constrain="json_schema",
    )
    assert outcome.value is True
    messages = fake_server.requests[1]["body"]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[1]["content"] == "nope"
