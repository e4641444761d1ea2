"""An answer that opens by reporting the user's question back ("You asked whether ...",
"Restating: you want to know ...", "**Question:** ...") and then only says what the material
lacks: a claim that the evidence lacks the answer (issue 32, meaning20; pure).

Someone who answers does not report the question first; one who cannot often does, so such an
opening answers nothing, and what follows it decides: some sentence after it claims the
material lacks something (`absence_claims`, or a clause whose subject it says is not shown,
`missing_subjects`), and none plainly gives what the evidence holds
(negates nothing, names an identifier or a number of the evidence). The openings are data
(absence_asked.toml `question_reports`).

    reported_question(text, words) -> the answer is such a claim (`words`: the evidence's)
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache

from helix.synthesis.absence import absence_claims, answers_from
from helix.synthesis.absence_asked import _SENTENCE, ASKED_FILE, _plain, missing_subjects


@lru_cache(maxsize=1)
def _opening() -> re.Pattern[str]:
    with ASKED_FILE.open("rb") as handle:
        reports = tomllib.load(handle)["question_reports"]
    spaced = "|".join(re.escape(r).replace(r"\ ", r"\s+") for r in sorted(reports))
    return re.compile(r"^\W*(?:" + spaced + r")(?![\w])", re.I)


def reported_question(text: str, words: frozenset[str]) -> bool:
    sentences = [s.group() for s in _SENTENCE.finditer(text) if s.group().strip()]
    if len(sentences) < 2 or not _opening().match(sentences[0].replace("’", "'")):
        return False
    rest = sentences[1:]
    return any(absence_claims(s) or missing_subjects(s) for s in rest) and not any(
        _plain(s) and answers_from(s, words, terms=False) for s in rest)
