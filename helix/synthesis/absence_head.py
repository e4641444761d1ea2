"""The learned absence head (issue 32, absence10): a logistic regression over what the rules
and the sentence encoder read in an answer, trained on every absence set by
`python -m evals.absence_train`, its regularisation and threshold chosen leave-one-writer-out.

    answer_features(text, refs, evidence, meaning, question) -> (Reading, vector)
    AbsenceHead.load()                  -> the shipped head (absence_model/head.json), or None
    head.refuses(vector, reading)       -> whether the contract refuses the answer

The features (`FEATURES`) are the verdict's parts (`absence_verdict.absence_reading`: claims,
whether the answer answers from the evidence outside them, a cited contrast, a yes-or-no
reply, a claim naming what was asked, a blanket claim), the phrase rules' verdict alone, the
encoder's best compared span (its similarity to the absence exemplars and margin over the
answer exemplars, `absence_meaning`: already computed for the verdict, no other encoder call),
and the answer's shape (citations, negations, hedges, words, sentences, the share of its words
the evidence holds and of the question's words it names, the evidence's numbers it gives),
and what its clauses deny (`absence_denial`: the asked words it says are missing, negated
verbs of telling, a statement turning to a denial after a contrast or a colon, a bare
negation denying the verb of showing before it, a denied telling conceded before a statement),
and whether its negations repeat a negating line of the evidence (`absence_grounded`) or deny
an asked thing a plain line of the evidence states (`absence_held`).
With `mode` "stack" the head decides (the rules' verdict is one of its features); with "union"
it only adds refusals.
Deterministic: float64 products of the shipped weights, the probability rounded to `DECIMALS`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from helix.core.english import NEGATION_WORDS
from helix.core.envelope import EvidenceItem
from helix.core.errors import ConfigError
from helix.synthesis.absence import content_terms, evidence_words
from helix.synthesis.absence_denial import DENIAL, denial
from helix.synthesis.absence_grounded import GROUNDED, grounded
from helix.synthesis.absence_held import HELD
from helix.synthesis.absence_held import held as held_denied
from helix.synthesis.absence_meaning import AbsenceMeaning
from helix.synthesis.absence_shape import SHAPE, shape
from helix.synthesis.absence_verdict import Reading, _forms, _held_forms, absence_reading
from helix.synthesis.citations import extract_citations
from helix.synthesis.prompt import CitationRef

__all__ = ["FEATURES", "HEAD_FILE", "AbsenceHead", "answer_features"]

HEAD_FILE = Path(__file__).with_name("absence_model") / "head.json"
FEATURES = ("spans", "best_absence", "best_margin", "claims", "phrase_claims", "answered",
            "note", "targets", "blanket", "cites", "answers_from", "replies", "held_share",
            "question_share", "negations", "hedges", "words", "sentences", "verdict",
            "rules_verdict", *SHAPE, "values", *DENIAL, *GROUNDED,
            *HELD)
DECIMALS = 6
NO_MARGIN = -0.5  # the margin of an answer with no compared span
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=[^\s.!?]))+(?:[.!?]+|(?=\n)|$)")
_SAID = re.compile(r"[a-z]+(?:['’]t)?")
# a number as written: "120", "0.8", "4.5:1", "08:00"; not a citation's "E1", a name's "v2"
# nor a line range's "4-8" after a path
_NUMBER = re.compile(r"(?<![\w.,:-])\d+(?:[.,:]\d+)*")


def _values(text: str, evidence: Sequence[EvidenceItem] | None) -> float:
    """How many numbers of the evidence the answer gives (log1p of the distinct ones): an
    answer states the material's values, a claim of absence names what is missing (meaning23:
    left out writer by writer, the head accepts fewer claims at the same refusals with it)."""
    held = {n for e in evidence or () for n in _NUMBER.findall(e.text)}
    return math.log1p(len({n for n in _NUMBER.findall(text) if n in held}))


def _share(terms: Sequence[str], held: frozenset[str]) -> float:
    return sum(1 for t in terms if _forms(t) & held) / len(terms) if terms else 0.0


def answer_features(text: str, refs: Sequence[CitationRef],
                    evidence: Sequence[EvidenceItem] | None, meaning: AbsenceMeaning,
                    question: str | None) -> tuple[Reading, tuple[float, ...]]:
    """The verdict's reading of `text` and the head's feature vector, in `FEATURES` order."""
    from helix.synthesis.absence import absence_claims, answers_from

    words = evidence_words(part for e in evidence or ()
                           for part in (e.text, e.path, e.symbol or "", e.heading or ""))
    reading = absence_reading(text, refs, evidence, meaning, question, words)
    rules = absence_reading(text, refs, evidence, None, question, words)
    held = _held_forms(words)
    scored = meaning.score(text, held)
    best = max(scored, key=lambda s: s.margin) if scored else None
    said = _SAID.findall(text.lower())
    hedges = meaning.ex.hedge_words
    terms, asked = content_terms(text), content_terms(question or "")
    mine = {f for t in terms for f in _forms(t)}
    values = (
        len(scored), best.absence if best else 0.0, best.margin if best else NO_MARGIN,
        len(reading.claims), len(absence_claims(text, cues=False)), reading.answered,
        reading.note, reading.targets, reading.blanket,
        bool(extract_citations(text, refs)[1]), answers_from(text, words), reading.replies,
        _share(terms, held), _share(asked, frozenset(mine)),
        math.log1p(sum(1 for w in said if w in NEGATION_WORDS or w.endswith(("'t", "’t")))),
        sum(1 for w in said if w in hedges), math.log1p(len(said)),
        math.log1p(sum(1 for s in _SENTENCE.finditer(text) if s.group().strip())),
        reading.refused, rules.refused,
        *shape(text, reading.claims, words, question, said, hedges), _values(text, evidence),
        *denial(text, question, held), *grounded(text, evidence),
        *held_denied(text, question, evidence))
    return reading, tuple(float(v) for v in values)


@dataclass(frozen=True)
class AbsenceHead:
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]  # the bias first, then one per feature (standardised)
    threshold: float
    mode: str  # "stack": the head decides; "union": the rules' refusals stand

    @classmethod
    def load(cls, path: Path = HEAD_FILE) -> AbsenceHead:
        return _load(str(path))

    def probability(self, vector: Sequence[float]) -> float:
        z = self.weights[0] + math.fsum(
            w * (v - m) / s for w, v, m, s in zip(self.weights[1:], vector, self.mean,
                                                  self.scale, strict=True))
        return round(1.0 / (1.0 + math.exp(-max(min(z, 60.0), -60.0))), DECIMALS)

    def refuses(self, vector: Sequence[float], reading: Reading) -> bool:
        said = self.probability(vector) > self.threshold
        return said or reading.refused if self.mode == "union" else said


@lru_cache(maxsize=4)
def _load(path: str) -> AbsenceHead:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        head = AbsenceHead(features=tuple(data["features"]), mean=tuple(data["mean"]),
                           scale=tuple(data["scale"]), weights=tuple(data["weights"]),
                           threshold=float(data["threshold"]), mode=str(data["mode"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"the absence head cannot be read: {exc}") from None
    if head.features != FEATURES or len(head.weights) != len(FEATURES) + 1 \
            or head.mode not in ("stack", "union"):
        raise ConfigError("the absence head was trained for other features: run "
                          "`python -m evals.absence_train`")
    return head
