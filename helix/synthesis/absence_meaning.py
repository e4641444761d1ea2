"""Absence claims found by what a sentence means: the sentence encoder against exemplars.

    AbsenceMeaning(embedder, policy).claims(text, held) -> AbsenceClaim for every sentence or
                                                           clause that claims the material
                                                           lacks the answer, in any wording

The phrase rules of `helix.synthesis.absence` find the claims they name; this finds the others
("There's nothing in these files that decides retries", "The snippets shown are unrelated to
retrying ledger posts"). Each sentence that speaks of the material or of the speaker (a
`reference_words` word: "files", "shown", "I", "here" ...) and of something missing (a
negation, or a `polarity_words` word: "unrelated", "silent", "outside" ...), and each of its
clauses, is compared with exemplars of absence claims and of ordinary answers (data:
helix/synthesis/absence_exemplars.toml) after the words the evidence holds, identifiers, paths
and numbers are replaced by a placeholder: what is compared is what the sentence says about
the material, not its subject. A span is a claim when its mean cosine to the nearest absence
exemplars reaches `similarity_min` and beats the answer exemplars by `margin_min`
(`synthesis.absence` in helix/core/section_settings.py), every cosine rounded to `decimals`.

The embedder is injected (a port: the shipped all-MiniLM-L6-v2 through the numpy encoder in
`helix ask`, a fake in tests); each text is embedded alone, so a vector never depends on what
else was embedded with it. Exemplar vectors are kept per model key for the process; the
shipped encoder's ship with Helix (`helix.synthesis.exemplar_vectors`), another encoder's are
embedded (`exemplar_embedder` may be a cached one that keeps them across processes).
"""

from __future__ import annotations

import re
import threading
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from helix.core.config import AbsencePolicy
from helix.core.english import CLAIM_WORDS, NEGATION_WORDS, stems
from helix.core.hashing import hash_obj
from helix.core.ports import Embedder
from helix.synthesis.absence import _CITATION, AbsenceClaim, content_terms, reports_from
from helix.synthesis.exemplar_vectors import shipped_vectors

if TYPE_CHECKING:
    import numpy as np

EXEMPLARS_FILE = Path(__file__).with_name("absence_exemplars.toml")
# a sentence ends at ".", "!" or "?" before a space or the end (never inside a path or a name:
# "export/csv_writer.py:5-11 but ..."), and at a line break; never at ";": a clause after it
# speaks of what the clause before names ("The evidence is about the welcome mails; the reset
# email isn't covered": the second says what the evidence lacks), and each is a clause too
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=[^\s.!?]))+(?:[.!?]+|(?=\n)|$)")
_TOKEN = re.compile(r"[\w$~./'’()=-]*\w(?:[\w$~./'’()=-]*[\w)])?|[^\w\s]")
_WORD = re.compile(r"[a-z]+")
_IDENTIFIER_MARKS = frozenset("_./$~()=")
_CITED_AFTER = re.compile(r"\s*\[\s*E\d+", re.I)  # a citation right after a span
_FILE_PATH = re.compile(r"\w[\w.-]*/[\w./-]*\w")  # a path names the material: "a/b.py"


@dataclass(frozen=True)
class Exemplars:
    absence: tuple[str, ...]
    answer: tuple[str, ...]
    reference_words: frozenset[str]
    polarity_words: frozenset[str]
    behaviour_words: frozenset[str]
    exclusive_words: frozenset[str]
    sighting_words: frozenset[str]
    qualifying_words: frozenset[str]
    determiners: frozenset[str]
    material_nouns: frozenset[str]
    subject_nouns: frozenset[str]  # reference words that may name a thing of the subject
    polar_leads: frozenset[str]
    replies: frozenset[str]
    hedge_words: frozenset[str]  # an answer's hedges: a feature of the learned head
    clause: re.Pattern[str]
    contrast: re.Pattern[str]  # a contrast word opening a clause: ", but", " though"
    place: re.Pattern[str]  # the material named by a pronoun: "in there", "in any of these"
    placeholder: str
    kept: frozenset[str]  # never replaced: the vocabulary of claiming and of the exemplars
    digest: str


@lru_cache(maxsize=1)
def load_exemplars() -> Exemplars:
    with EXEMPLARS_FILE.open("rb") as handle:
        data = tomllib.load(handle)
    words = "|".join(map(re.escape, data["clause_words"]))
    clause = re.compile(rf"\s*[;—–]\s+|,\s+(?=(?:{words})\b)", re.I)
    contrasts = "|".join(map(re.escape, data["contrast_words"]))
    contrast = re.compile(rf",?\s+(?:{contrasts})\b,?", re.I)
    place = re.compile(r"\b(?:" + "|".join(map(re.escape, data["place_prepositions"]))
                       + r")\s+(?:(?:" + "|".join(map(re.escape, data["place_quantifiers"]))
                       + r")\s+of\s+)?(?:"
                       + "|".join(map(re.escape, data["place_pronouns"])) + r")\b(?!\s+\w)",
                       re.I)
    vocabulary = {w for text in data["absence"] for w in _WORD.findall(text.lower())}
    return Exemplars(
        absence=tuple(data["absence"]), answer=tuple(data["answer"]),
        reference_words=frozenset(data["reference_words"]),
        polarity_words=frozenset(data["polarity_words"]) | NEGATION_WORDS,
        behaviour_words=frozenset(data["behaviour_words"]),
        exclusive_words=frozenset(data["exclusive_words"]),
        sighting_words=frozenset(data["sighting_words"]),
        qualifying_words=frozenset(data["qualifying_words"]),
        determiners=frozenset(data["determiners"]),
        material_nouns=frozenset(data["material_nouns"]),
        subject_nouns=frozenset(data["subject_nouns"]),
        polar_leads=frozenset(data["polar_leads"]), replies=frozenset(data["replies"]),
        hedge_words=frozenset(data["hedge_words"]),
        clause=clause,
        contrast=contrast, place=place,
        placeholder=data["placeholder"],
        kept=CLAIM_WORDS | NEGATION_WORDS | frozenset(data["reference_words"]) | vocabulary,
        digest=hash_obj(data))


class Span(NamedTuple):
    start: int
    end: int
    masked: str  # what is embedded


class Scored(NamedTuple):
    span: Span
    absence: float  # mean cosine to the nearest absence exemplars
    answer: float  # the same over the answer exemplars

    @property
    def margin(self) -> float:
        return round(self.absence - self.answer, 6)


def _identifier(token: str) -> bool:
    return (any(c in _IDENTIFIER_MARKS for c in token.strip(".")) or token[1:] != token[1:].lower()
            or any(c.isdigit() for c in token))


def masked(text: str, held: frozenset[str], ex: Exemplars) -> str:
    """`text` with every word the evidence holds (or a part of a hyphenated word: "retry-related"),
    identifier, path and number replaced by the placeholder (a run of them by one)."""
    out: list[str] = []
    for token in _TOKEN.findall(_CITATION.sub(" ", text)):
        word = token.lower().replace("’", "'")
        if not token[0].isalnum() and token[0] not in "_$~.":
            out.append(token)
            continue
        forms = {f for part in word.split("-") if part
                 for f in (*stems(part), *stems(part, "suffix"))}
        if word not in ex.kept and (_identifier(token) or forms & held):
            if not out or out[-1] != ex.placeholder:
                out.append(ex.placeholder)
        else:
            out.append(token)
    return re.sub(r"\s+([,.;:?!])", r"\1", " ".join(out)).strip()


def _may_claim(sentence: str, ex: Exemplars, held: frozenset[str] = frozenset()) -> bool:
    """The sentence speaks of the material or the speaker (a reference word, not one of
    `subject_nouns` the evidence uses itself; a file path: "Neither mail/send.py nor ...", or
    a pronoun after a preposition: "not in there"), and of something missing, not of when the
    code does something (a `behaviour_words` word: "Nothing is parsed until ...") nor of all
    there is (a negation right before an `exclusive_words` word: "No other unit shows up for
    it")."""
    said = re.findall(r"[a-z]+(?:['’]t)?", sentence.lower())
    words = set(said)
    if words & ex.behaviour_words or any(
            w in NEGATION_WORDS and nxt in ex.exclusive_words for w, nxt in pairwise(said)):
        return False
    return bool(_references(said, ex, held) or _FILE_PATH.search(sentence)
                or ex.place.search(sentence)) and bool(
        words & ex.polarity_words or any(w.endswith(("'t", "’t")) for w in words))


def _references(said: list[str], ex: Exemplars, held: frozenset[str] = frozenset()
                ) -> set[str]:
    """The reference words of a sentence, a participle that qualifies a noun of the code
    aside ("for a *given* flag", "the *shared* secret"; never "the provided context"), and one
    of `subject_nouns` the evidence uses itself aside: a thing of its subject ("the nightly job
    archives the *project*" where the evidence speaks of projects; "*code*" among the tags an
    allow-list holds), not the material."""
    out: set[str] = set()
    padded = ["", *said, ""]
    for before, word, after in zip(padded, padded[1:], padded[2:], strict=False):
        qualifies = (word in ex.qualifying_words and before in ex.determiners and after
                     and not {after} & (ex.reference_words | ex.kept | ex.material_nouns))
        if word in ex.reference_words and not qualifies and not (
                word in ex.subject_nouns and _uses(word, held)):
            out.add(word)
    return out


def _uses(word: str, held: frozenset[str]) -> bool:
    return bool(held) and bool({*stems(word), *stems(word, "suffix")} & held)


def spans(text: str, held: frozenset[str], ex: Exemplars) -> list[Span]:
    """Each sentence, and each clause of it, that may make a claim (`_may_claim`)."""
    out: list[Span] = []
    for sentence in _SENTENCE.finditer(text):
        said = sentence.group()
        if not _may_claim(said, ex, held):
            continue
        parts = [(sentence.start(), sentence.end())]
        cut = sentence.start()
        for mark in ex.clause.finditer(said):
            parts.append((cut, sentence.start() + mark.start()))
            cut = sentence.start() + mark.end()
        if cut != sentence.start():
            parts.append((cut, sentence.end()))
        for start, end in parts:
            start += len(text[start:end]) - len(text[start:end].lstrip())  # from its first word
            shown = masked(text[start:end], held, ex)
            if _may_claim(text[start:end], ex, held) and re.search(r"\w", shown):
                out.append(Span(start, end, shown))
    return out


_VECTORS: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}
_VECTORS_LOCK = threading.Lock()
_KEPT_SCORES = 4


def _embed_each(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Each text's vector, each embedded alone; an embedder that embeds each text alone itself
    (`embeds_each_alone`: the embedding cache's) gets them all in one call: the same vectors,
    one cache lookup and write instead of one a text."""
    import numpy as np

    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    if getattr(embedder, "embeds_each_alone", False):
        return np.asarray(embedder.embed(list(texts)), dtype=np.float32)
    return np.vstack([embedder.embed([t]) for t in texts]).astype(np.float32)


class AbsenceMeaning:
    def __init__(self, embedder: Embedder, policy: AbsencePolicy,
                 exemplar_embedder: Embedder | None = None,
                 exemplars: Exemplars | None = None) -> None:
        self.embedder, self.policy = embedder, policy
        self._exemplar_embedder = exemplar_embedder or embedder
        self.ex = exemplars or load_exemplars()
        self._scored: dict[tuple[str, frozenset[str]], list[Scored]] = {}

    def _exemplar_vectors(self) -> tuple[np.ndarray, np.ndarray]:
        key = (self.embedder.model_key, self.ex.digest)
        with _VECTORS_LOCK:
            found = _VECTORS.get(key)
        if found is None:
            # the shipped encoder's ship with Helix: no exemplar embedded
            found = shipped_vectors(*key) or (
                _embed_each(self._exemplar_embedder, self.ex.absence),
                _embed_each(self._exemplar_embedder, self.ex.answer))
            with _VECTORS_LOCK:
                _VECTORS[key] = found
        return found

    def score(self, text: str, held: frozenset[str]) -> list[Scored]:
        """Every compared span of `text` with its two similarities, in order (kept for the
        last few texts: the verdict and the learned head read the same answer)."""
        key = (text, held)
        if key not in self._scored:
            if len(self._scored) >= _KEPT_SCORES:
                self._scored.clear()
            self._scored[key] = self._score(text, held)
        return self._scored[key]

    def _score(self, text: str, held: frozenset[str]) -> list[Scored]:
        import numpy as np

        found = spans(text, held, self.ex)
        if not found:
            return []
        absence, answer = self._exemplar_vectors()
        vectors = _embed_each(self.embedder, [s.masked for s in found])
        k, places = self.policy.neighbours, self.policy.decimals

        def nearest(sims: np.ndarray) -> list[float]:
            sims = np.round(sims.astype(np.float64), places)
            top = -np.sort(-sims, axis=1)[:, :k]
            return [round(float(v), places) for v in top.mean(axis=1)]

        return [Scored(span, a, b) for span, a, b in
                zip(found, nearest(vectors @ absence.T), nearest(vectors @ answer.T),
                    strict=True)]

    def _claiming(self, text: str, scored: Scored, evidence: frozenset[str] | None) -> bool:
        start, end = scored.span.start, scored.span.end
        if evidence is not None and reports_from(text[start:end], evidence,
                                                 self.ex.polarity_words):
            return False
        cited = _CITATION.search(text[start:end]) or _CITED_AFTER.match(text, end)
        need = self.policy.margin_min + (self.policy.cited_margin if cited else 0.0)
        return (scored.absence >= self.policy.similarity_min
                and scored.margin >= round(need, self.policy.decimals))

    def claims(self, text: str, held: frozenset[str],
               evidence: frozenset[str] | None = None) -> list[AbsenceClaim]:
        """The spans that claim absence, as AbsenceClaims whose terms are the span's content
        words: in each sentence the first clause that claims, else the sentence when only it
        does ("The value of MAX isn't shown" in "`f` returns False ...; the value of MAX isn't
        shown": the rest of the sentence may answer). A span that cites the evidence (a
        citation in it or right after it) must beat the answer exemplars by `cited_margin`
        more; one that reports from the `evidence` words (`absence.reports_from`) is none."""
        found = [s.span for s in self.score(text, held) if self._claiming(text, s, evidence)]
        out: list[AbsenceClaim] = []
        for span in found:
            inner = [o for o in found if o != span and span.start <= o.start
                     and o.end <= span.end]
            if not inner and not any(c.start <= span.start < c.end
                                     or span.start <= c.start < span.end for c in out):
                out.append(AbsenceClaim(span.start, span.end,
                                        content_terms(text[span.start:span.end])))
        return sorted(out)
