"""Entity and relation labels from spaCy tokens, shared by the dependency rules and the fallback.

An entity is a head noun with its compound, adjectival, numeric and nominal modifiers (recursively, and an
adverb inside an adjective: "very large"), in text order; determiners, possessives and punctuation are
dropped. Rule ``gerund``: a subjectless -ing verb that stands for a noun (a clausal subject, a preposition's
complement, or one conjoined to those) is an entity with its particle, object and open complement ("for refusing
to hire drug users" gives "refuse to hire drug user"). Every word is spaCy's contextual lemma, lower-cased,
whitespace collapsed (``normalise_label`` with spaCy's lemmas kept as they are: spaCy knows the part of speech, so
"founded" gives "found").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from scoring.kg.types import normalise_label

if TYPE_CHECKING:
    from spacy.tokens import Token

ENTITY_MODIFIER_DEPS = frozenset({"compound", "amod", "nummod", "nmod"})
NOMINAL_POS = frozenset({"NOUN", "PROPN", "NUM", "PRON", "X"})
# Comparative adjectives and adverbs keep their surface form: the lemma of "older" is "old".
COMPARATIVE_TAGS = frozenset({"JJR", "RBR"})
# Where a subjectless -ing verb stands for a noun (rule gerund): a clausal subject, a preposition's complement.
GERUND_POSITIONS = frozenset({"csubj", "csubjpass", "pcomp"})
GERUND_ARGUMENT_DEPS = frozenset({"prt", "dobj", "xcomp"})


def identity(word: str) -> str:
    return word


def word(tok: Token) -> str:
    """A token's label word: its lemma, or its lower-cased form for a comparative."""
    return tok.lower_ if tok.tag_ in COMPARATIVE_TAGS else tok.lemma_


def label(tokens: Iterable[Token]) -> str:
    """The normalised label of some tokens: their lemmas in text order, lower-cased."""
    words = [tok.lemma_ for tok in sorted(tokens, key=lambda t: t.i) if not tok.is_punct]
    return normalise_label(" ".join(words), lemmatise=identity)


def is_gerund(tok: Token) -> bool:
    """A subjectless -ing verb used as a noun ("capping costs is ...", "for refusing to hire ..."), or one
    conjoined to such a gerund ("capping costs and raising prices")."""
    if tok.dep_ == "conj" and tok.head.dep_ != "conj" and is_gerund(tok.head):
        return tok.tag_ == "VBG" and not _has_subject(tok)
    return tok.tag_ == "VBG" and tok.dep_ in GERUND_POSITIONS and not _has_subject(tok)


def _has_subject(tok: Token) -> bool:
    return any(c.dep_ in ("nsubj", "nsubjpass") for c in tok.children)


def _gerund_child(tok: Token, child: Token) -> bool:
    """Rule ``gerund``: a gerund's label keeps its particle, its direct object and its open complement
    (with that complement's "to"): "refusing to hire drug users" -> "refuse to hire drug user"."""
    if tok.pos_ != "VERB":
        return False
    return child.dep_ in GERUND_ARGUMENT_DEPS or (child.dep_ == "aux" and child.lower_ == "to" and tok.dep_ == "xcomp")


def entity_tokens(head: Token) -> list[Token]:
    """The head noun with its compound / adjectival / numeric / nominal modifiers, recursively; a gerund
    with its particle, object and open complement."""
    tokens = [head]
    stack = [head]
    gerund = is_gerund(head)
    while stack:
        tok = stack.pop()
        for child in tok.children:
            if (
                child.dep_ in ENTITY_MODIFIER_DEPS
                or (child.dep_ == "advmod" and tok.dep_ == "amod")
                or (gerund and _gerund_child(tok, child))
            ):
                tokens.append(child)
                stack.append(child)
    return tokens


# Subject pronouns that the coreference rule resolves to a person named earlier in the sentence (object
# pronouns are left: "Anna told Ben that she liked him" must not give (anna, like, anna)).
PERSONAL_PRONOUNS = frozenset({"he", "she"})


def antecedent(tok: Token) -> Token | None:
    """Rule ``coreference``: a personal pronoun's antecedent, the nearest proper-noun subject before it in
    its sentence ("Gardenhire moved when he was 10": he is Gardenhire); None when there is none."""
    if tok.pos_ != "PRON" or tok.lower_ not in PERSONAL_PRONOUNS or tok.dep_ not in ("nsubj", "nsubjpass"):
        return None
    for i in range(tok.i - 1, tok.sent.start - 1, -1):
        cand = tok.doc[i]
        if cand.pos_ == "PROPN" and cand.dep_ in ("nsubj", "nsubjpass"):
            return cand
    return None


def entity(tok: Token) -> str:
    resolved = antecedent(tok)
    return label(entity_tokens(resolved if resolved is not None else tok))


def conjuncts(tok: Token) -> list[Token]:
    return [tok, *sorted(tok.conjuncts, key=lambda t: t.i)]


def pobjs(prep: Token) -> list[Token]:
    """The objects of a preposition, conjuncts included; a gerund complement counts as one (rule gerund)."""
    return [t for c in prep.children if c.dep_ == "pobj" or (c.dep_ == "pcomp" and is_gerund(c)) for t in conjuncts(c)]
