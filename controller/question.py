"""A question read once: raw text -> one frozen `Question`, in one pass.

    read_question(raw, settings, spelled_as=index.spelled_as, scope=None, sense=None)

1. redacted: a pasted secret is masked before anything reads, logs or sends it
   (`helix.core.secrets.redact_text`);
2. cut: a long pasted report keeps what locates it (`controller.report_cut`, RETRIEVAL_CHARS);
3. respelled: a misspelt plain word is read as the repository's word, when the index's
   vocabulary is handed in and `retrieval.respell` is on (`controller.question_spelling`);
4. routed: the route with every group its pattern matched, slots, subjects, terms, path hints,
   scope, the action of a location question, and what the answer echoes (`controller.route`,
   `controller.asked`, the vocabulary in `controller/route_phrases.toml`).

The controller, the answer writers and the continuity router read the fields of the result;
no module parses the text again. `helix.service.ask` is the one caller that has an index: the
session runner reads a turn's message before it has one (no respelling) and hands the
`Question` on, which `respell` completes once the index is open.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.question_spelling import reading_note, respelled_question
from controller.report_cut import RETRIEVAL_CHARS, cut_report
from controller.route import SENSE_CHECK_ROUTES, Knows, RoutePlan, route_question
from helix.core.config import RetrievalSettings
from helix.core.envelope import QuestionCut
from helix.core.schemas import Frozen
from helix.core.secrets import redact_text

SpelledAs = Callable[[str], str | None]  # the index's word for a misspelt one, or None


class Question(Frozen):
    """One question as every step after the reading sees it."""

    asked: str  # redacted and cut: what the envelope, the run log and the model are given
    cut: QuestionCut | None = None  # what the cut of a long report kept (None: nothing cut)
    scope: str | None = None  # as given by the caller (a scope the text says is in the plan)
    sense: str | None = None  # the sense chosen for an ambiguous term, as given
    respelt: bool = False  # the index's vocabulary was consulted
    read: tuple[tuple[str, str], ...] = ()  # (typed, read as): the words read otherwise
    plan: RoutePlan

    @property
    def note(self) -> str | None:
        """The answer's first line when words were read otherwise (the user sees the
        correction, never a silent rewrite)."""
        return reading_note(self.read) if self.read else None


def _routed(asked: str, settings: RetrievalSettings, spelled_as: SpelledAs | None,
            scope: str | None, sense: str | None, knows: Knows | None = None
            ) -> tuple[RoutePlan, tuple[tuple[str, str], ...]]:
    text = asked
    read: tuple[tuple[str, str], ...] = ()
    if spelled_as is not None and settings.respell:
        text, read = respelled_question(asked, spelled_as)
    return route_question(text, routing=settings.routing, scope=scope, sense=sense,
                          knows=knows), read


def read_question(raw: str, settings: RetrievalSettings, *,
                  spelled_as: SpelledAs | None = None, scope: str | None = None,
                  sense: str | None = None, knows: Knows | None = None) -> Question:
    """Read `raw` once (redact, cut, respell when `spelled_as` is given, route; the sense
    check reads the index's vocabulary when `knows` is given: `controller.route.sense_terms`)."""
    asked, cut = cut_report(redact_text(raw)[0], RETRIEVAL_CHARS)
    plan, read = _routed(asked, settings, spelled_as, scope, sense, knows)
    return Question(asked=asked, cut=cut, scope=scope, sense=sense,
                    respelt=spelled_as is not None, read=read, plan=plan)


def respell(question: Question, settings: RetrievalSettings, spelled_as: SpelledAs,
            knows: Knows | None = None) -> Question:
    """`question` with the index's vocabulary consulted (read before the index was open); the
    plan unchanged when it already was, or no word is misspelt and the sense check reads no
    other term with the vocabulary (`knows`) than without."""
    if question.respelt:
        return question
    text, read = (respelled_question(question.asked, spelled_as) if settings.respell
                  else (question.asked, ()))
    if not read and (knows is None or question.plan.intent.route not in SENSE_CHECK_ROUTES):
        return question.model_copy(update={"respelt": True})
    plan = route_question(text, routing=settings.routing, scope=question.scope,
                          sense=question.sense, knows=knows)
    if not read and _sense_check(plan) == _sense_check(question.plan):
        return question.model_copy(update={"respelt": True})
    return question.model_copy(update={"respelt": True, "read": read, "plan": plan})


def _sense_check(plan: RoutePlan) -> tuple[str | None, bool]:
    return plan.ambiguous_term, plan.sense_check_only
