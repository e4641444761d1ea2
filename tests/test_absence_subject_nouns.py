"""(issue 32, meaning14) A reference word the evidence uses itself names a thing of its subject,
not the material: a sentence whose only reference is such a word ("the sweeper closes the
*project*" where the evidence speaks of projects; "*code*" among the tags an allow-list keeps)
is never compared with the absence exemplars. fresh15's ordinary answers "After 180 days
without commits, ... the nightly job archives the project." and "No raw HTML beyond the
allow-list (b, i, code, ...)" were refused as claims. Wordings of no data set; the first two
cases are compared on main."""

from __future__ import annotations

import pytest

from helix.synthesis.absence import evidence_words
from helix.synthesis.absence_meaning import load_exemplars, spans
from helix.synthesis.absence_verdict import _held_forms

EVIDENCE = ("The sweeper closes a project after 90 days without activity; closed projects are "
            "kept. The allow-list keeps bold, italic and code tags.")
HELD = _held_forms(evidence_words([EVIDENCE]))


@pytest.mark.parametrize(("sentence", "compared"), [
    ("Every night the sweeper closes the project without a backup.", False),
    ("The allow-list keeps only bold, italic and code.", False),
    # a word naming the material, or the speaker, still refers to it
    ("The provided files don't show how the sweeper closes a project.", True),
    ("Nothing shown here says when a project is closed.", True),
    # the word refers to the material where the evidence does not use it
    ("The module doesn't say when it runs.", True),
])
def test_a_reference_word_the_evidence_uses_is_its_subject(sentence: str,
                                                           compared: bool) -> None:
    assert bool(spans(sentence, HELD, load_exemplars())) is compared, sentence
