"""The few-shot LLM triplet extractor (S3KG §3.1), with strict JSON parsing and a llama.cpp grammar.

The model sees a short instruction, a few worked examples and the text, and answers with a JSON list of
``[head, relation, tail]`` lists. The prompt is written in our own words, as a completion prompt (it
ends on ``Triplets:``) so that base models such as the shipped gemma-3-270m can follow it too.
``TRIPLET_GRAMMAR`` constrains a llama.cpp model to exactly that JSON shape; providers that do not take
grammars are given it all the same and may ignore it, since the parser does not trust the output.

The extractor calls a plain ``complete(prompt, grammar) -> text`` callable, so it depends on no
provider module; the pipeline adapts its provider layer to that signature.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from scoring.kg.types import Triplet, normalise_triplets

# Bump whenever the instruction, the examples or the answer format change: stored graphs are keyed by it.
PROMPT_VERSION = "kg-fewshot-v1"

Complete = Callable[[str, str | None], str]

_INSTRUCTION = (
    "Extract the facts stated in the text as knowledge-graph triplets. Each triplet is "
    "[head, relation, tail]: head and tail are short entity names taken from the text, relation is a "
    'short verb phrase. Keep negation in the relation ("did not win"). State only what the text says. '
    "Answer with a JSON list of triplets and nothing else; answer [] when the text states no fact."
)

# Two or three short examples: active and passive voice, a copula, a preposition, negation.
FEW_SHOT_EXAMPLES: tuple[tuple[str, list[list[str]]], ...] = (
    (
        "Marie Curie discovered polonium in 1898. She was born in Warsaw.",
        [
            ["Marie Curie", "discovered", "polonium"],
            ["Marie Curie", "discovered in", "1898"],
            ["Marie Curie", "was born in", "Warsaw"],
        ],
    ),
    (
        "The bridge was designed by a young engineer and is the longest in the region.",
        [
            ["young engineer", "designed", "bridge"],
            ["bridge", "is", "longest in the region"],
        ],
    ),
    (
        "Aspirin did not reduce mortality in elderly patients.",
        [["Aspirin", "did not reduce", "mortality in elderly patients"]],
    ),
)


def build_prompt(text: str) -> str:
    """The completion prompt for ``text``: instruction, examples, then the text and ``Triplets:``."""
    parts = [_INSTRUCTION, ""]
    for example_text, triplets in FEW_SHOT_EXAMPLES:
        parts += [f"Text: {example_text}", f"Triplets: {json.dumps(triplets, ensure_ascii=False)}", ""]
    parts += [f"Text: {' '.join(text.split())}", "Triplets:"]
    return "\n".join(parts)


def build_repair_prompt(prompt: str, bad_output: str, error: str) -> str:
    """A second prompt after an unparseable answer: the first one, the answer, and what was wrong."""
    return (
        f"{prompt} {bad_output.strip()}\n\n"
        f"That answer is not valid: {error}. Answer again with only a JSON list of "
        '["head", "relation", "tail"] lists of strings.\n'
        "Triplets:"
    )


# GBNF for llama.cpp: a JSON list (possibly empty) of lists of exactly three non-empty JSON strings.
# Whitespace is limited to one optional character between tokens so a model cannot pad forever.
TRIPLET_GRAMMAR = r"""
root    ::= "[" ws ( triplet ( ws "," ws triplet )* )? ws "]"
triplet ::= "[" ws label ws "," ws label ws "," ws label ws "]"
label   ::= "\"" char+ "\""
char    ::= [^"\\\x00-\x1F\x7F] | "\\" escape
escape  ::= ["\\/bfnrt] | "u" hex hex hex hex
hex     ::= [0-9a-fA-F]
ws      ::= [ \n]?
"""


class TripletParseError(ValueError):
    """The model's answer is not a JSON list of [head, relation, tail] string lists."""


_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)


def _describe(value: Any) -> str:
    shown = json.dumps(value, ensure_ascii=False)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def parse_triplets_json(text: str) -> list[Triplet]:
    """Parse an answer into triplets, exactly as written (stripped, not normalised).

    Accepted: a JSON list of lists of three non-empty strings, optionally inside a ```json fence, with
    any text after the closing bracket ignored (completion models run on past the answer). Anything
    else raises ``TripletParseError`` saying what was wrong and where: text before the list, invalid
    JSON, a non-list, an item that is not a list, the wrong number of labels, a non-string or empty
    label.
    """
    fenced = _FENCE.search(text)
    body = (fenced.group(1) if fenced else text).strip()
    if not body:
        raise TripletParseError("the answer is empty; expected a JSON list of [head, relation, tail] lists")
    if not body.startswith("["):
        raise TripletParseError(f"the answer must start with a JSON list '[', got {body[:40]!r}")
    try:
        value, _end = json.JSONDecoder().raw_decode(body)
    except json.JSONDecodeError as exc:
        raise TripletParseError(f"invalid JSON: {exc.msg} at character {exc.pos}") from None
    triplets: list[Triplet] = []
    for index, item in enumerate(value):
        if not isinstance(item, list):
            raise TripletParseError(f"item {index} is not a list of three strings: {_describe(item)}")
        if len(item) != 3:
            raise TripletParseError(
                f"item {index} has {len(item)} elements, expected 3 (head, relation, tail): {_describe(item)}"
            )
        for label in item:
            if not isinstance(label, str):
                raise TripletParseError(
                    f"item {index} has a {type(label).__name__} label, expected strings: {_describe(item)}"
                )
            if not label.strip():
                raise TripletParseError(f"item {index} has an empty label: {_describe(item)}")
        triplets.append(Triplet(item[0].strip(), item[1].strip(), item[2].strip()))
    return triplets


class LLMExtractor:
    """Few-shot LLM extraction through ``complete(prompt, grammar) -> text``.

    ``use_grammar`` passes ``TRIPLET_GRAMMAR`` to ``complete`` (None otherwise). An unparseable answer
    gets one repair prompt; a second failure raises ``TripletParseError``. ``model`` names the model
    behind ``complete`` and is part of ``version``, since two models give two different graphs.
    """

    name = "llm"

    def __init__(self, complete: Complete, *, model: str = "", use_grammar: bool = True) -> None:
        self._complete = complete
        self._grammar = TRIPLET_GRAMMAR if use_grammar else None
        self.version = f"{PROMPT_VERSION}/{model}" if model else PROMPT_VERSION

    def extract_raw(self, text: str) -> list[Triplet]:
        """The triplets as the model wrote them (before normalisation)."""
        if not text.strip():
            return []
        prompt = build_prompt(text)
        answer = self._complete(prompt, self._grammar)
        try:
            return parse_triplets_json(answer)
        except TripletParseError as first:
            repair = build_repair_prompt(prompt, answer, str(first))
            second_answer = self._complete(repair, self._grammar)
            try:
                return parse_triplets_json(second_answer)
            except TripletParseError as second:
                raise TripletParseError(
                    f"unparseable after one repair retry: first answer: {first}; second answer: {second}"
                ) from second

    def extract(self, text: str) -> list[Triplet]:
        """Normalised, deduplicated triplets in the order the model gave them."""
        return normalise_triplets(self.extract_raw(text))
