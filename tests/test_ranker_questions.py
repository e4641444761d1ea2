"""A model trained on commit messages orders reports, not questions: a long question that the
length rule sends down the `issue` route keeps the hand order (`retrieval.ranker.questions`
off), while the same words as a statement are ordered by the model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from golden_files import RealIndex, real_index

from controller.driver import run_controller
from controller.question import read_question
from controller.rank_step import applies
from helix.core.policy import RankerPolicy
from helix.core.ports import FakeClock

FILES = {
    "client/backoff.py": "def compute_backoff(attempt):\n    \"\"\"Seconds to wait before "
                         "retry number `attempt`.\"\"\"\n    return 2 ** attempt\n\n\n"
                         "def send(request, attempt=0):\n    return compute_backoff(attempt)\n",
    "client/session.py": "class Session:\n    \"\"\"Keeps the token and retries a request.\"\"\"\n"
                         "\n    def refresh(self, token):\n        self.token = token\n",
    "client/cache.py": "def evict(entries, ttl):\n    \"\"\"Drops the entries older than ttl "
                       "seconds.\"\"\"\n    return [e for e in entries if e.age < ttl]\n",
}
# more than `routing.issue_min_words` words: the `issue` route, whatever the wording
WORDS = ("the function that computes the backoff delay before a retry of a request doubles "
         "the waiting time for every attempt and the session refreshes its token when the "
         "cache evicts the entries older than the ttl in seconds")
QUESTION = f"Why does {WORDS}?"
STATEMENT = f"Retry waits wrong because {WORDS}"


@dataclass
class _Reversed:
    """A model of the `issue` route that puts the hand order upside down."""

    routes: frozenset[str] | None = frozenset({"issue"})
    calls: list[int] = field(default_factory=list)

    def score(self, pooled: Sequence[Any], rows: Sequence[Sequence[float]]) -> Sequence[float]:
        self.calls.append(len(pooled))
        return [float(n) for n in range(len(pooled))]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> RealIndex:
    return real_index(FILES, tmp_path_factory.mktemp("ranker-questions"), embed=False)


def _evidence(repo: RealIndex, text: str, mode: str, scorer: _Reversed | None = None,
              **ranker: object) -> list[tuple[str, int]]:
    retrieval = repo.config.retrieval.model_copy(update={
        "ranker": repo.config.retrieval.ranker.model_copy(update={"mode": mode, **ranker})})
    config = repo.config.model_copy(update={"retrieval": retrieval})
    env = run_controller(read_question(text, config.retrieval), repo.index, config,
                         query_embedder=None, clock=FakeClock(), ranker=scorer)
    return [(e.path, e.start_line) for e in env.evidence]


def test_a_question_on_the_issue_route_keeps_the_hand_order(repo: RealIndex) -> None:
    assert repo.ask(QUESTION).route == repo.ask(STATEMENT).route == "issue"
    scorer = _Reversed()
    hand = _evidence(repo, QUESTION, "hand")
    assert _evidence(repo, QUESTION, "learned", scorer) == hand
    assert scorer.calls == []  # never scored
    # the statement is what the model was trained on: it orders it
    assert _evidence(repo, STATEMENT, "learned", scorer) != _evidence(repo, STATEMENT, "hand")
    assert len(scorer.calls) == 1
    # asked to order questions too, it does
    assert _evidence(repo, QUESTION, "learned", scorer, questions=True) != hand
    assert len(scorer.calls) == 2


def test_applies_to_the_model_routes_and_questions_only_when_asked() -> None:
    named, every = _Reversed(), _Reversed(routes=None)
    off, on = RankerPolicy(), RankerPolicy(questions=True)
    assert applies(named, "issue", False, off)
    assert not applies(named, "issue", True, off)
    assert applies(named, "issue", True, on)
    assert not applies(named, "location", False, on)  # a route it was never trained on
    assert applies(every, "location", True, off)  # a model naming no routes orders every text
