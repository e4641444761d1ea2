"""Classes of absence-claim wording the encoder never saw before meaning9 (issue 32), each
judged by structure before the encoder: every case here is judged the other way by the code
before meaning9 (a2e1129)."""

from __future__ import annotations

import pytest

from helix.synthesis.absence_meaning import load_exemplars, spans


@pytest.mark.parametrize(("text", "compared"), [
    # the material named by a pronoun after a preposition is a reference to it
    ("Nope, not in there.", True),
    ("hmm no, nothing about the cap in these.", True),
    ("Nothing on that in any of those, sorry.", True),
    # a demonstrative before a noun names that noun, not the material
    ("No retry happens in these cases.", False),
])
def test_a_pronoun_after_a_preposition_names_the_material(text: str, compared: bool) -> None:
    assert bool(spans(text, frozenset(), load_exemplars())) is compared, text


@pytest.mark.parametrize("text", [
    "sorry i dont see any of that described here",
    "I couldnt find where it is decided.",
    "The provided snippets doesnt mention the cap.",
    "The context doesn’t say which errors are retried.",  # a typographic apostrophe
    "the evidence didnt cover it",
])
def test_the_phrase_rules_read_a_contraction_however_it_is_written(text: str) -> None:
    from helix.synthesis.contract import claims_no_evidence

    assert claims_no_evidence(text), text


def test_this_one_names_the_question_so_the_claim_is_a_blanket_one() -> None:
    from helix.synthesis.absence import content_terms

    assert content_terms("So I can't answer this one from the repo as shown.") == ()
    # "every one" and "one" elsewhere keep their word
    assert "one" in content_terms("the snippets may not show every one")


@pytest.mark.parametrize(("text", "claim"), [
    # a negated subject the material is said not to show (old: no rule named it)
    ("no retention period or purge job mentioned in these snippets so cant tell", True),
    ("No retry cap is listed in the excerpts.", True),
    ("no jitter documented anywhere in the provided files", True),
    # what the code is said not to do, or a note with no material, is left to the rest
    ("No retry happens in the code path for permanent errors.", False),
    ("Per the doc the backoff doubles; no jitter is mentioned.", False),
])
def test_no_thing_shown_in_the_material_is_a_claim(text: str, claim: bool) -> None:
    from helix.synthesis.contract import claims_no_evidence

    assert claims_no_evidence(text) is claim, text
