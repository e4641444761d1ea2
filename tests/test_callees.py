"""From the function the evidence leads with, the callee whose body holds the question's words
joins the evidence after it (`controller.callees`, `retrieval.callees`), through the driver's
graph lookup too."""

from __future__ import annotations

from route_helpers import route_question

from controller.callees import promotions
from controller.driver import _with_callees
from controller.evidence import Candidate
from controller.reasons import render
from helix.core.config import HelixConfig
from helix.core.policy import CalleesPolicy, FileDefsPolicy
from helix.core.schemas import Chunk
from tests.controller_helpers import files_index

POLICY = CalleesPolicy(enabled=True)
SCORING = FileDefsPolicy()


def _chunk(symbol: str, text: str, start: int) -> Chunk:
    return Chunk(id=f"retry.py:{start}", path="retry.py", kind="code_def", lang="python",
                 start_line=start, end_line=start + text.count("\n"), text=text,
                 content_hash="sha256:0", symbol=symbol, def_kind="function",
                 node_id=f"def:retry.py::{symbol}")


SEND = _chunk("send", "def send(request):\n    return _attempt(request)\n", 1)
DECIDE = _chunk("should_retry", "def should_retry(status, attempt):\n"
                "    \"\"\"Retry on a 503 status until the attempt limit.\"\"\"\n"
                "    return status == 503 and attempt < LIMIT\n", 10)
LOG = _chunk("log", "def log(message):\n    print(message)\n", 20)


def test_the_callee_that_decides_joins_after_its_caller() -> None:
    question = frozenset({"retry", "decid", "status", "attempt"})
    promoted = promotions(question, [SEND], lambda c: [LOG, DECIDE] if c is SEND else [],
                          POLICY, SCORING)
    assert promoted == [(0, DECIDE)]


def test_no_callee_joins_when_none_holds_the_question() -> None:
    question = frozenset({"retry", "status"})
    assert promotions(question, [SEND], lambda c: [LOG], POLICY, SCORING) == []
    # an item already in the evidence is not added twice
    assert promotions(question, [SEND, DECIDE], lambda c: [DECIDE], POLICY, SCORING) == []


def test_the_driver_follows_the_calls_edge() -> None:
    index = files_index({"net/client.py": (
        "from net.policy import should_retry\n\n\n"
        "def send_request(request):\n"
        "    \"\"\"Send the request over the wire.\"\"\"\n"
        "    return should_retry(request.status, request.attempt)\n"),
        "net/policy.py": (
        "LIMIT = 3\n\n\n"
        "def should_retry(status, attempt):\n"
        "    \"\"\"The retry decision: a 503 status is retried until the attempt limit.\"\"\"\n"
        "    return status == 503 and attempt < LIMIT\n")})
    question = "how does send_request decide whether a status is retried after an attempt?"
    plan = route_question(question)
    caller = next(c for c in index.chunks_for_path("net/client.py") if c.symbol == "send_request")
    ranked = [Candidate(chunk=caller, score=1.0, step=0, reasons=())]
    config = HelixConfig()
    assert _with_callees(plan, ranked, index, config) == ranked  # off by default
    on = config.model_copy(update={"retrieval": config.retrieval.model_copy(
        update={"callees": CalleesPolicy(enabled=True)})})
    followed = _with_callees(plan, ranked, index, on)
    assert [c.chunk.symbol for c in followed] == ["send_request", "should_retry"]
    assert render(followed[1].reasons[0]) == "called by send_request"
