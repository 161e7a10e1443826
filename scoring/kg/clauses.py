"""Predicate rules: one ``Frame`` (who does what to whom) per verb or copula of a dependency parse.

Named rules, each with its own test sentence in ``tests/scoring/test_kg_dependency.py``:

- ``active``: a predicate links its subjects to its objects (``dobj``, ``attr``, ``acomp``, ``oprd``) under its
  lemma, and to each prepositional object under "lemma prep";
- ``passive``: with a "by" agent the agent heads, (agent, verb, subject); without one the subject heads and
  the relation starts with "be";
- ``conjunction``: conjoined subjects, objects, prepositional objects and verbs fan out (a conjoined verb
  without a subject takes its head verb's subjects; a verb without objects takes those of a conjoined verb
  that follows it);
- ``open_complement``: "decided to leave X" gives (…, decide to leave, x);
- ``adverbial_participle``: a subjectless adverbial clause takes its main verb's subject: "Born in 1841,
  X moved to Y" gives (x, be bear in, 1841);
- ``intransitive``: a predicate with a subject and nothing else still states a fact: "the others are
  finished" gives (other, be, finish), "the patients died" (patient, be, die);
- ``relative_clause`` and ``participle``: the clause's verb takes the noun it modifies;
- ``implicit_subject``: a sentence's main verb without a subject (a dictionary gloss, an imperative)
  gets "someone": "perform a duty" gives (someone, perform, duty);
- ``negation``: "not", "n't", "never" become "not" at the front of the relation;
- ``dative``: a bare dative object is the "to" object ("gave Ben a book" = "gave a book to Ben");
- ``reporting_clause``: a verb's "that" clause is linked through its subjects: "X said that the district waited"
  gives (x, say, district) beside the clause's own triplets;
- ``light_verb``: "take place", "take part" are one verb, their noun is not an object;
- ``complement_preposition``: a copula's adjective, comparative or relational noun merges with its
  preposition: "is older than Y" → (x, be older than, y), "is the mother of Y" → (x, be mother of, y),
  "is north of Y" → (x, be north of, y), "is famous for Y" → (x, be, famous), (x, be famous for, y).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from scoring.kg.converse import RELATIONAL_NOUNS
from scoring.kg.frames import Frame
from scoring.kg.spans import COMPARATIVE_TAGS, NOMINAL_POS, conjuncts, entity, identity, is_gerund, pobjs, word
from scoring.kg.types import normalise_label

if TYPE_CHECKING:
    from spacy.tokens import Token

SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass"})
OBJECT_DEPS = frozenset({"dobj", "attr", "acomp", "oprd"})
RELATIVE_TAGS = frozenset({"WDT", "WP"})
# The subject given to a sentence's main verb that has none (rule implicit_subject).
IMPLICIT_SUBJECT = "someone"
# Verb + noun idioms read as one verb: "took place before X" is not (…, take, place).
LIGHT_VERB_NOUNS: dict[str, frozenset[str]] = {"take": frozenset({"place", "part"})}


def _is_relative_pronoun(tok: Token) -> bool:
    return tok.tag_ in RELATIVE_TAGS or (tok.lower_ == "that" and tok.head.dep_ == "relcl")


@dataclass
class _Clause:
    """Who does what to whom for one predicate, after voice and relative pronouns are resolved."""

    subjects: list[Token] = field(default_factory=list)
    objects: list[Token] = field(default_factory=list)
    preps: list[tuple[str, list[Token]]] = field(default_factory=list)
    passive: bool = False
    agents: list[Token] = field(default_factory=list)


def _own_subjects(verb: Token) -> tuple[list[Token], bool]:
    subjects: list[Token] = []
    passive = any(c.dep_ == "auxpass" for c in verb.children)
    for child in verb.children:
        if child.dep_ in SUBJECT_DEPS:
            subjects += conjuncts(child)
            passive = passive or child.dep_.endswith("pass")
    return subjects, passive


def _relative_antecedent(verb: Token) -> Token | None:
    """The noun a relative clause or participle modifies."""
    if verb.dep_ in ("relcl", "acl") and verb.head.pos_ in NOMINAL_POS:
        return verb.head
    return None


def _resolve(tokens: list[Token], antecedent: Token | None) -> list[Token]:
    """Relative pronouns replaced by the noun they stand for (dropped when there is none)."""
    out: list[Token] = []
    for tok in tokens:
        if _is_relative_pronoun(tok):
            if antecedent is not None:
                out.append(antecedent)
        else:
            out.append(tok)
    return out


def is_copula(verb: Token) -> bool:
    return verb.lemma_ == "be"


def merged_complement(tok: Token) -> Token | None:
    """Rule ``complement_preposition``: the preposition a copula's complement merges with, if any.

    An adjective (any), a comparative (with "than") or a relational noun (with "of") that is the
    complement of "be" and has a prepositional object.
    """
    if tok.dep_ not in ("acomp", "attr") or not is_copula(tok.head):
        return None
    for prep in tok.children:
        if prep.dep_ != "prep" or not pobjs(prep):
            continue
        if tok.pos_ == "ADJ" or tok.tag_ in COMPARATIVE_TAGS:
            return prep
        if tok.lemma_.lower() in RELATIONAL_NOUNS and prep.lemma_ == "of":
            return prep
    return None


def _complement_words(tok: Token) -> str:
    degree = [c for c in tok.children if c.dep_ == "advmod" and c.lower_ in ("more", "less", "most", "least")]
    return normalise_label(" ".join([c.lower_ for c in degree] + [word(tok)]), lemmatise=identity)


def _light_verb_object(verb: Token) -> Token | None:
    nouns = LIGHT_VERB_NOUNS.get(verb.lemma_)
    if not nouns:
        return None
    return next((c for c in verb.children if c.dep_ == "dobj" and c.lemma_ in nouns), None)


def _conjoined_preps(prep: Token) -> list[Token]:
    """Rule ``conjunction`` for prepositions: "from X and from Y", "for X, or for Y"."""
    return [prep, *(c for c in prep.children if c.dep_ == "conj" and c.pos_ == "ADP")]


def _inherit_subjects(verb: Token, clause: _Clause, antecedent: Token | None) -> None:
    if antecedent is not None and not clause.subjects and verb.tag_ == "VBN":
        clause.subjects, clause.passive = [antecedent], True  # "a firm founded by X": passive participle
    elif antecedent is not None and not clause.subjects and verb.tag_ == "VBG":
        clause.subjects = [antecedent]  # "a man living in Paris"
    elif (
        antecedent is None
        and not clause.subjects
        and verb.dep_ in ("conj", "xcomp", "advcl")
        and verb.head.pos_ in ("VERB", "AUX")
    ):
        inherited = _clause(verb.head)
        clause.subjects = inherited.agents or inherited.subjects
        if verb.dep_ == "conj" and verb.tag_ == "VBN" and inherited.passive:
            clause.passive, clause.subjects = True, inherited.subjects  # "was built and renamed"
        elif verb.dep_ == "advcl" and verb.tag_ == "VBN":
            clause.passive, clause.subjects = True, inherited.subjects  # "Born in 1841, X moved"


def _reported(clause_verb: Token) -> list[Token]:
    """Rule ``reporting_clause``: a verb's "that" clause is linked to it through that clause's subjects:
    "Mr Caramore said that the district waited for Y" gives (mr caramore, say, district) beside (district,
    wait for, y). Only a clause marked by "that": a quotation ("'...,' said X") or a bare clause is left as
    it was (linking those lowered AUROC on PAWS-Wiki, MRPC and STS12; docs/kg_extraction.md)."""
    if not any(c.dep_ == "mark" and c.lower_ == "that" for c in clause_verb.children):
        return []
    subjects = [t for c in clause_verb.children if c.dep_ in SUBJECT_DEPS for t in conjuncts(c)]
    return [t for t in subjects if not _is_relative_pronoun(t) and (t.pos_ != "VERB" or is_gerund(t))]


def _clause(verb: Token) -> _Clause:
    clause = _Clause()
    antecedent = _relative_antecedent(verb)
    subjects, clause.passive = _own_subjects(verb)
    clause.subjects = _resolve(subjects, antecedent)
    _inherit_subjects(verb, clause, antecedent)
    light = _light_verb_object(verb)
    stranded: list[Token] = []
    for child in verb.children:
        if child.dep_ in OBJECT_DEPS and child != light:
            merged = merged_complement(child)
            if merged is not None:
                clause.preps.append(
                    (f"{_complement_words(child)} {merged.lemma_}", _resolve(pobjs(merged), antecedent))
                )
                if child.tag_ in COMPARATIVE_TAGS or child.pos_ != "ADJ":
                    continue  # "older than Y", "mother of Y": the bare complement would mislead
            clause.objects += _resolve(conjuncts(child), antecedent)
        elif child.dep_ == "dative" and child.pos_ in NOMINAL_POS:
            clause.preps.append(("to", _resolve(conjuncts(child), antecedent)))  # rule dative
        elif child.dep_ in ("prep", "dative"):
            for prep in _conjoined_preps(child):
                objects = _resolve(pobjs(prep), antecedent)
                if objects:
                    clause.preps.append((prep.lemma_, objects))
                elif prep.dep_ == "prep":
                    stranded.append(prep)
        elif child.dep_ == "agent":
            clause.agents += pobjs(child)
        elif child.dep_ == "ccomp":
            clause.objects += _reported(child)  # rule reporting_clause
    used = clause.subjects + clause.objects + [t for _, objs in clause.preps for t in objs]
    if verb.dep_ == "relcl" and antecedent is not None and antecedent not in used:
        if stranded:  # "the house he lived in" -> (he, live in, house)
            clause.preps.append((stranded[0].lemma_, [antecedent]))
        elif not clause.objects:  # "the book (that) she wrote" -> (she, write, book)
            clause.objects.append(antecedent)
    if not clause.objects and not clause.preps:
        # Shared object of conjoined verbs: "X founded and ran Y" gives Y to "founded" too.
        for child in verb.children:
            if child.dep_ == "conj" and child.pos_ == "VERB" and not _own_subjects(child)[0]:
                clause.objects = [t for c in child.children if c.dep_ == "dobj" for t in conjuncts(c)]
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
    light = _light_verb_object(verb)
    if light is not None:
        words.append(light)
    return words


def _subjectless_main_verb(verb: Token) -> bool:
    """Rule ``implicit_subject``: the main verb of a sentence without a subject (a gloss, an imperative:
    "perform a duty", "bring back to life"), or a verb conjoined to one."""
    while verb.dep_ == "conj" and verb.head.pos_ == "VERB":
        verb = verb.head
    return verb.dep_ == "ROOT" and verb.pos_ == "VERB" and not _own_subjects(verb)[0]


def predicate_frame(verb: Token) -> Frame:
    """The frame of one verb or copula: voice resolved, labels normalised."""
    clause = _clause(verb)
    words = _relation_words(verb)
    negated = any(w.dep_ == "neg" for w in words)
    phrase = normalise_label(" ".join(w.lemma_ for w in words if w.dep_ != "neg"), lemmatise=identity)
    if clause.passive and clause.agents:
        heads, tails, passive = clause.agents, clause.subjects + clause.objects, False
    else:
        heads, tails, passive = clause.subjects, clause.objects, clause.passive
    subjects = tuple(entity(t) for t in heads)
    if not subjects and not passive and _subjectless_main_verb(verb):
        subjects = (IMPLICIT_SUBJECT,)
    return Frame(
        subjects=subjects,
        verb=phrase,
        objects=tuple(entity(t) for t in tails),
        preps=tuple(
            (normalise_label(p, lemmatise=identity), tuple(entity(t) for t in objs)) for p, objs in clause.preps
        ),
        negated=negated,
        passive=passive,
    )
