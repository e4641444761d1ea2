"""The cue words of negation (helix/core/negation.toml), loaded once (pure): what
`helix.core.negation` reads a sentence's negations with.

    cues() -> Cues: each phrase list by its first word, longest first
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

CUES_FILE = Path(__file__).with_name("negation.toml")


Phrases = dict[str, tuple[tuple[str, ...], ...]]  # by first word


@dataclass(frozen=True)
class Cues:
    """The cue words of negation.toml, each phrase a tuple of lowercase words."""

    punctuation: frozenset[str]
    boundary_words: frozenset[str]
    boundary_as_written: frozenset[str]  # "ma" ends a clause, "mA" never
    coordinators: frozenset[str]
    predicate_starts: frozenset[str]
    factives: frozenset[str]
    forward: Phrases
    coordinating: frozenset[str]
    evaluative: Phrases
    past: Phrases
    past_tense: Phrases
    past_forms: frozenset[str]  # "sent", "gave": past tenses not in "-ed"
    present_auxiliaries: frozenset[str]  # "is stored": a participle of the present
    superseded_by: Phrases
    held_from: frozenset[str]  # "from 3.0 on": a version from which something holds
    held_on: frozenset[str]
    sequels: frozenset[str]  # "was mW, then kW in 2.0, now W": a clause going on in the past
    elided_sequels: frozenset[str]  # "was KiB until 1.4, in bytes in 2.0": no verb of its own
    past_ends: frozenset[str]  # "until 1.4": when the past clause before it ended
    past_subjects: frozenset[str]
    present_subjects: frozenset[str]
    change_verbs: frozenset[str]
    change_from: frozenset[str]
    change_to: frozenset[str]
    renames: frozenset[str]  # "rename `dpi` to `dpr`": the old name is denied
    rename_arrows: frozenset[str]  # "rename max_ma -> max_a"
    change_verb_words: int
    anaphora: frozenset[str]
    demonstratives: frozenset[str]
    complementizers: frozenset[str]
    truths: Phrases
    reports: frozenset[str]  # "people keep telling me ...; that isn't true"
    refuted_quantifiers: Phrases  # "none of them are right"
    negative_replies: Phrases
    indirect_questions: frozenset[str]  # "asked whether it is dB. It isn't."
    misreadings: Phrases  # "`x` treated as MiB instead of %": a headline of a misreading
    misread_corrections: Phrases  # "instead of": what the misread value should have been
    headline_finite: frozenset[str]  # a sentence with one of these is no headline
    postpositive: tuple[str, ...]  # a negation after what it denies ("dB ではなく")
    postpositive_stops: tuple[str, ...]  # a particle ending the words it denies
    elliptical: Phrases
    harmful: Phrases
    conditions: frozenset[str]
    suppositions: Phrases  # "... if you mean mebibytes": a condition after its clause
    error_verbs: frozenset[str]
    error_endings: tuple[str, ...]
    manner_anaphora: Phrases
    received: frozenset[str]  # "...; got 270, which looks like degrees": the rejected input
    requirements: frozenset[str]  # "must", "expects": what an error message requires
    relatives: frozenset[str]
    relatives_after: Phrases
    negators: Phrases
    fillers: frozenset[str]
    copulas: frozenset[str]
    prepositions: frozenset[str]
    infinitive: frozenset[str]
    determiners: frozenset[str]
    subject_words: int
    label_marks: frozenset[str]
    label_predicates: frozenset[str]
    participle_endings: tuple[str, ...]
    validity: frozenset[str]
    heading_times: Phrases  # "Deprecated since 2.4: ...": a label's time before its mark


def _phrases(words: list[str]) -> Phrases:
    """Phrases by their first word, longest first ("no longer" is tried before "no")."""
    out: dict[str, list[tuple[str, ...]]] = {}
    for phrase in sorted({tuple(w.split()) for w in words}, key=lambda p: (-len(p), p)):
        out.setdefault(phrase[0], []).append(phrase)
    return {first: tuple(found) for first, found in out.items()}


@lru_cache(maxsize=1)
def cues() -> Cues:
    with CUES_FILE.open("rb") as handle:
        data = tomllib.load(handle)
    bounds, cue, pred = data["boundaries"], data["cues"], data["predicate"]
    return Cues(
        punctuation=frozenset(bounds["punctuation"]), boundary_words=frozenset(bounds["words"]),
        boundary_as_written=frozenset(bounds["as_written"]),
        coordinators=frozenset(bounds["coordinators"]),
        predicate_starts=frozenset(bounds["predicate_starts"]),
        factives=frozenset(bounds["factives"]),
        forward=_phrases(cue["forward"]), coordinating=frozenset(cue["coordinating"]),
        evaluative=_phrases(cue["evaluative"]),
        past=_phrases(cue["past"]), past_tense=_phrases(cue["past_tense"]),
        past_forms=frozenset(cue["past_forms"]),
        present_auxiliaries=frozenset(cue["present_auxiliaries"]),
        superseded_by=_phrases(cue["superseded_by"]),
        held_from=frozenset(cue["held_from"]), held_on=frozenset(cue["held_on"]),
        sequels=frozenset(cue["sequels"]), elided_sequels=frozenset(cue["elided_sequels"]),
        past_ends=frozenset(cue["past_ends"]),
        past_subjects=frozenset(cue["past_subjects"]),
        present_subjects=frozenset(cue["present_subjects"]),
        change_verbs=frozenset(cue["change_verbs"]), change_from=frozenset(cue["change_from"]),
        change_to=frozenset(cue["change_to"]),
        renames=frozenset(cue["renames"]), rename_arrows=frozenset(cue["rename_arrows"]),
        change_verb_words=int(cue["change_verb_words"]), anaphora=frozenset(cue["anaphora"]),
        demonstratives=frozenset(cue["demonstratives"]),
        complementizers=frozenset(cue["complementizers"]), truths=_phrases(cue["truths"]),
        reports=frozenset(cue["reports"]),
        refuted_quantifiers=_phrases(cue["refuted_quantifiers"]),
        negative_replies=_phrases(cue["negative_replies"]),
        indirect_questions=frozenset(cue["indirect_questions"]),
        misreadings=_phrases(cue["misreadings"]),
        misread_corrections=_phrases(cue["misread_corrections"]),
        headline_finite=frozenset(cue["headline_finite"]),
        postpositive=tuple(cue["postpositive"]),
        postpositive_stops=tuple(cue["postpositive_stops"]),
        elliptical=_phrases(cue["elliptical"]), harmful=_phrases(cue["harmful"]),
        conditions=frozenset(cue["conditions"]),
        suppositions=_phrases(cue["suppositions"]), error_verbs=frozenset(cue["error_verbs"]),
        error_endings=tuple(cue["error_endings"]),
        manner_anaphora=_phrases(cue["manner_anaphora"]),
        received=frozenset(cue["received"]), requirements=frozenset(cue["requirements"]),
        relatives=frozenset(cue["relatives"]), relatives_after=_phrases(cue["relatives_after"]),
        negators=_phrases(pred["negators"]),
        fillers=frozenset(pred["fillers"]),
        copulas=frozenset(pred["copulas"]), prepositions=frozenset(pred["prepositions"]),
        infinitive=frozenset(pred["infinitive"]), determiners=frozenset(pred["determiners"]),
        subject_words=int(pred["subject_words"]), label_marks=frozenset(pred["label_marks"]),
        label_predicates=frozenset(pred["label_predicates"]),
        participle_endings=tuple(pred["participle_endings"]),
        validity=frozenset(pred["validity"]), heading_times=_phrases(cue["heading_times"]))
