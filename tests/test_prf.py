"""Pseudo-relevance feedback on chunk BM25 (`controller.feedback`, `controller.prf`)."""

from __future__ import annotations

from controller_helpers import ask, files_index

from controller.channels import Request, execute
from controller.feedback import expansion_terms
from controller.fusion import FAMILIES, Ranked, channel_weight, rrf
from helix.core.config import HelixConfig, RetrievalSettings
from helix.core.policy import Pools
from indexers.api import IndexReader

# The question's words ("wait", "failed", "request", "again") are in the two callers; the
# definition that decides the delay uses only the code's words ("backoff", "attempt").
FILES = {
    "pkg/client.py": '''def send_request(url, attempt):
    """Send the request; when it failed, wait and try the request again."""
    time.sleep(backoff_seconds(attempt))
    return transport(url)
''',
    "pkg/session.py": '''def resend_failed(session, attempt):
    """Wait before the failed request is tried again."""
    pause = backoff_seconds(attempt)
    return session.replay(pause)
''',
    "pkg/retry.py": '''def backoff_seconds(attempt):
    """Grow exponentially, capped."""
    return min(CAP, BASE * 2 ** attempt)
''',
    **{f"pkg/extra{n}.py": f'''def unrelated_{n}(value):
    """Format the value number {n} for display."""
    return str(value).upper()
''' for n in range(8)},
}


def _index() -> IndexReader:
    return files_index(FILES)


QUESTION = "how long does the client wait before a failed request is tried again"


def _paths(index: IndexReader, channel: str, pools: Pools) -> list[str]:
    request = Request(channel=channel, query=QUESTION, k=10)  # type: ignore[arg-type]
    return [f.chunk.path for f in execute(index, request, None, pools).found]


def test_expansion_terms_are_shared_by_the_feedback_and_weighted_by_idf() -> None:
    feedback = [(["wait", "backoff", "attempt", "self"], 2.0),
                (["wait", "backoff", "attempt", "self", "pause"], 1.0)]
    doc_freq = {"backoff": 3, "attempt": 9, "self": 90, "pause": 2, "wait": 5}
    terms = expansion_terms(["wait"], feedback, doc_freq, 100, terms=5)
    # "wait" is asked, "pause" one chunk holds, "self" most chunks hold: none of them
    assert [t for t, _ in terms] == ["backoff", "attempt"]
    assert terms[0][1] > terms[1][1] > 0
    assert expansion_terms(["wait"], feedback, doc_freq, 100, terms=1) == terms[:1]
    assert expansion_terms(["wait"], feedback, doc_freq, 100, terms=0) == []
    assert [t for t, _ in expansion_terms(["wait"], feedback, doc_freq, 100, terms=5,
                                          min_docs=1)] == ["backoff", "attempt", "pause"]


def test_the_feedback_pass_finds_a_definition_the_question_has_no_word_of() -> None:
    index = _index()
    on = Pools(prf_terms=5, prf_docs=2, prf_weight=0.5)
    assert "pkg/retry.py" not in _paths(index, "bm25", on)
    found = _paths(index, "prf", on)
    assert "pkg/retry.py" in found
    assert {"pkg/client.py", "pkg/session.py"} <= set(found[:3])
    assert _paths(index, "prf", on) == found  # deterministic
    assert _paths(index, "prf", Pools()) == []  # off by default


def test_the_seed_asks_the_feedback_pass_only_when_it_is_on() -> None:
    index = _index()
    off = ask(index, QUESTION)
    assert all("prf" not in step.channels for step in off.controller_steps)
    config = HelixConfig().model_copy(update={"retrieval": RetrievalSettings(
        pools=Pools(prf_terms=5, prf_docs=2))})
    on = ask(index, QUESTION, config)
    assert "prf" in on.controller_steps[0].channels
    assert any(e.path == "pkg/retry.py" for e in on.evidence)
    assert all(e.path != "pkg/retry.py" for e in off.evidence)


def test_the_feedback_list_is_one_lexical_vote_with_bm25() -> None:
    settings = RetrievalSettings(pools=Pools(w_prf=0.4))
    assert channel_weight("prf", settings) == 0.4
    assert FAMILIES["prf"] == "bm25"
    lists = [Ranked(channel="bm25", query="q", chunk_ids=("a", "b")),
             Ranked(channel="prf", query="q", chunk_ids=("b", "c"))]
    fused = {f.chunk_id: f.score for f in rrf(lists, settings)}
    k = settings.rrf_k
    assert fused["b"] == round(max(settings.w_bm25 / (k + 2), 0.4 / (k + 1)), 9)
    assert fused["c"] == round(0.4 / (k + 2), 9)
