"""Rule ``fallback``: a sentence whose parse gives no triplet still gets one, from its root and arguments.

Without it a pair with such a sentence scores 0 under S3KG whatever its meaning ("Coffee and tea.",
"Happy birthday, Anna!", a one-word answer). Intransitive clauses have their own rule
(``frames.intransitive_triplets``). The fallback triplet is built from the sentence's main verb, or its
root when there is no verb:

- head: the verb's subject, else the root when it is nominal, else the first nominal word;
- relation: the verb phrase (negation as "not", particle kept), else "be";
- tail: the first argument of the verb that is not the head (object, complement, adverbial, prepositional
  object, clausal complement's root), else any other content word of the sentence; when there is none, the
  verb itself becomes the tail under "be"; a sentence that names one thing only links it to itself
  ("The end." gives (end, be, end)), the only case where head and tail are equal.

Extractors count the sentences that needed it, so benchmarks can report how many graphs rest on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scoring.kg.spans import NOMINAL_POS, entity, entity_tokens, identity
from scoring.kg.types import Triplet, normalise_label

if TYPE_CHECKING:
    from spacy.tokens import Span, Token

_VERB_POS = frozenset({"VERB", "AUX"})
_CONTENT_POS = frozenset({*NOMINAL_POS, "VERB", "ADJ", "ADV", "INTJ"})
_ARGUMENT_DEPS = ("dobj", "attr", "acomp", "oprd", "dative", "xcomp", "ccomp", "advmod", "npadvmod", "prep", "advcl")


def _main_verb(sent: Span) -> Token | None:
    root = sent.root
    if root.pos_ in _VERB_POS:
        return root
    return next((t for t in sent if t.pos_ == "VERB"), None)


def _label(tok: Token) -> str:
    if tok.pos_ in NOMINAL_POS:
        return entity(tok)
    return normalise_label(tok.lemma_, lemmatise=identity)


def _head(sent: Span, verb: Token | None) -> Token | None:
    if verb is not None:
        subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass", "expl")), None)
        if subject is not None and subject.dep_ != "expl":
            return subject
        if verb.dep_ in ("acl", "relcl") and verb.head.pos_ in NOMINAL_POS:
            return verb.head
    if sent.root.pos_ in NOMINAL_POS:
        return sent.root
    return next((t for t in sent if t.pos_ in NOMINAL_POS), None)


def _argument(verb: Token, taken: set[int]) -> Token | None:
    for dep in _ARGUMENT_DEPS:
        for child in verb.children:
            if child.dep_ != dep or child.i in taken:
                continue
            if dep == "prep":
                pobj = next((c for c in child.children if c.dep_ == "pobj"), None)
                if pobj is not None and pobj.i not in taken:
                    return pobj
                continue
            return child
    return None


def fallback_triplet(sent: Span) -> Triplet | None:
    """The sentence's one fallback triplet; None only for a sentence without a content word."""
    content = [t for t in sent if t.pos_ in _CONTENT_POS and not t.is_punct]
    if not content:
        return None
    verb = _main_verb(sent)
    head = _head(sent, verb) or content[0]
    taken = {t.i for t in entity_tokens(head)} | ({verb.i} if verb is not None else set())
    relation = "be"
    negated = verb is not None and any(c.dep_ == "neg" for c in verb.children)
    if verb is not None and verb.i != head.i:
        particles = [c.lemma_ for c in verb.children if c.dep_ == "prt"]
        relation = normalise_label(" ".join((["not"] if negated else []) + [verb.lemma_, *particles]), identity)
    tail = _argument(verb, taken) if verb is not None else None
    if tail is None:
        tail = next((t for t in content if t.i not in taken), None)
    if tail is None and verb is not None and verb.i != head.i:
        return Triplet(_label(head), "not be" if negated else "be", _label(verb))
    if tail is None:
        return Triplet(_label(head), "be", _label(head))
    return Triplet(_label(head), relation, _label(tail))
