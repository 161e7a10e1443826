"""The real llama.cpp server with the packaged gemma-3-270m, reached through the openai SDK."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalplatform.llm import local_server
from evalplatform.llm.cache import InMemoryCache
from evalplatform.llm.client import LLMClient
from evalplatform.llm.providers.openai_provider import OpenAIProvider
from evalplatform.llm.structured import structured_call
from scoring.cdke.judge_prompts import (
    CLASSIFY_STATEMENTS,
    EXTRACT_STATEMENTS,
    SCORE_ACCURACY,
    SCORE_COMPLETENESS,
    VALIDATE_ANSWER,
)
from scoring.cdke.prompts import answer_template, answer_values
from scoring.cdke.verdicts import parse_classification, parse_lav, parse_scale, parse_statements

pytestmark = [
    pytest.mark.llm,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None,
        reason="llama_cpp (llama-cpp-python[server]) is not installed",
    ),
]
REPO = Path(__file__).resolve().parents[2]
MODEL = local_server.LOCAL_MODEL_NAME
CONTEXT = (
    "The Harwick lighthouse was built in 1874 by the stonemason Elias Brandt. "
    "It stands on the island of Morrow, north of the harbour."
)


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    patch = pytest.MonkeyPatch()
    patch.setenv("EVALPLATFORM_RUNTIME_DIR", str(tmp_path_factory.mktemp("runtime")))
    patch.setenv("EVALPLATFORM_MODEL_DIR", str(REPO / "var" / "models"))  # assembled once, reused
    try:
        yield local_server.ensure_local_server()
    finally:
        local_server.stop_local_server()
        patch.undo()


@pytest.fixture
def client(base_url: str) -> LLMClient:
    return LLMClient(OpenAIProvider(base_url=base_url, timeout=120), endpoint_name="local", cache=InMemoryCache())


def test_server_is_reused_not_restarted(base_url: str) -> None:
    state = local_server.read_state()
    assert state is not None and state.base_url == base_url
    assert local_server.ensure_local_server() == base_url
    assert local_server.read_state() == state


def test_two_shot_completion_answers_an_extractive_question_from_the_context(client: LLMClient) -> None:
    template = answer_template("divergent")
    request = template.request(MODEL, answer_values("divergent", "Who built the Harwick lighthouse?", CONTEXT))
    response = client.call(request, prompt_version=template.version_tag)
    assert "Elias Brandt" in response.text
    assert "\n" not in response.text  # stopped at the newline
    assert response.input_tokens > 0 and response.output_tokens > 0
    again = client.call(request, prompt_version=template.version_tag)
    assert again.cached and again.text == response.text


def test_grammar_constrained_lav_judge_call_parses(client: LLMClient) -> None:
    values = {
        "question": "Who built the Harwick lighthouse?",
        "ground_truth": "Elias Brandt",
        "answer": "Elias Brandt",
    }
    outcome = structured_call(client, VALIDATE_ANSWER, parse_lav, model=MODEL, values=values)
    assert outcome.status == "ok"
    assert isinstance(outcome.value, bool)
    assert len(outcome.responses) == 1  # the grammar made the first output parse


def test_every_judge_grammar_is_accepted_by_llama_cpp(client: LLMClient) -> None:
    question, truth, answer = "Who built it and when?", "Elias Brandt built it in 1874.", "Elias Brandt."
    scale = {"question": question, "ground_truth": truth, "answer": answer}
    for template in (SCORE_ACCURACY, SCORE_COMPLETENESS):
        outcome = structured_call(client, template, parse_scale, model=MODEL, values=scale)
        assert outcome.status == "ok" and outcome.value in (0.0, 0.25, 0.5, 0.75, 1.0)
    statements = structured_call(
        client,
        EXTRACT_STATEMENTS,
        parse_statements,
        model=MODEL,
        values={"question": question, "text": truth},
    )
    classified = structured_call(
        client,
        CLASSIFY_STATEMENTS,
        parse_classification,
        model=MODEL,
        values={
            "question": question,
            "answer_statements": '["Elias Brandt built it."]',
            "truth_statements": '["Elias Brandt built it.", "It was built in 1874."]',
        },
    )
    # A 270M model may run out of tokens inside a long list; the grammar keeps whatever it wrote on-format.
    for status, raw, prefix in (
        (statements.status, statements.raw, '{"statements": ['),
        (classified.status, classified.raw, '{"TP": ['),
    ):
        assert status in ("ok", "unparseable")
        assert raw.strip().startswith(prefix)
