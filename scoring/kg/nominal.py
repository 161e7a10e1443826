"""Noun-phrase rules: facts stated inside a noun phrase rather than by a verb.

- ``apposition``: "Obama, the president," → (obama, be, president);
- ``noun_preposition``: "the capital of France" → (capital, of, france) (not for a copula's relational
  noun, which ``clauses.merged_complement`` already merged: "is the mother of Jack");
- ``possessive``: "Brazil's victory" → (brazil, have, victory); a possessive pronoun ("his", "its") states
  nothing the rest of the sentence does not, and is left out.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from scoring.kg.clauses import merged_complement
from scoring.kg.spans import NOMINAL_POS, conjuncts, entity, identity, pobjs
from scoring.kg.types import Triplet, normalise_label

if TYPE_CHECKING:
    from spacy.tokens import Token


def apposition_triplets(tok: Token) -> Iterator[Triplet]:
    if tok.dep_ == "appos" and tok.head.pos_ in NOMINAL_POS:
        for appos in conjuncts(tok):
            yield Triplet(entity(tok.head), "be", entity(appos))


def noun_preposition_triplets(noun: Token) -> Iterator[Triplet]:
    if noun.pos_ not in ("NOUN", "PROPN"):
        return
    merged = merged_complement(noun)
    for prep in noun.children:
        if prep.dep_ != "prep" or prep == merged:
            continue
        for pobj in pobjs(prep):
            yield Triplet(entity(noun), normalise_label(prep.lemma_, lemmatise=identity), entity(pobj))


def possessive_triplets(noun: Token) -> Iterator[Triplet]:
    if noun.pos_ not in ("NOUN", "PROPN"):
        return
    for child in noun.children:
        if child.dep_ == "poss" and child.pos_ in ("NOUN", "PROPN"):
            for owner in conjuncts(child):
                yield Triplet(entity(owner), "have", entity(noun))


def nominal_triplets(tok: Token) -> Iterator[Triplet]:
    """Every noun-phrase rule on one token."""
    yield from apposition_triplets(tok)
    yield from noun_preposition_triplets(tok)
    yield from possessive_triplets(tok)
