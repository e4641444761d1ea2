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
