"""Reports, tracebacks and change descriptions: the issue route, its channels and file fusion."""

from __future__ import annotations

import time

import pytest
from controller_helpers import ask, files_index
from route_helpers import ROUTING, route_question

from controller.channels import Request, execute
from controller.fusion import Fused, Ranked, rrf, rrf_files
from controller.issue_text import frame_names, frame_paths, headline, is_change_or_bug, is_pasted
from controller.names import question_names
from controller.reasons import rank as rank_reason
from helix.core.config import HelixConfig, RetrievalSettings, load_config

TRACEBACK = """Client hangs on redirect

Traceback (most recent call last):
  File "/usr/lib/python3/site-packages/shop/cart.py", line 12, in add_item
    total = price_of(item)
  File "/usr/lib/python3/site-packages/shop/pricing.py", line 3, in price_of
    return TABLE[item]
KeyError: 'apple'
"""


@pytest.mark.parametrize(("text", "route"), [
    ("Fix bug when using client without timeouts in Python 3.6 (#383)", "issue"),
    ("Don't use background task in HTTP/1.1 dispatcher (#569)", "issue"),
    ("utf-8 is better for default multipart encoding", "issue"),
    ("Small refactor to adjust PR", "issue"),
    ("fix: handle None in parse_args", "issue"),
    (TRACEBACK, "issue"),
    ("pool hangs when the server closes the connection", "issue"),
    # questions stay questions, however they end
    ("where is the retry policy decided?", "location"),
    ("How does Graph store its adjacency?", "explanation"),
    ("What is a cavity?", "definition"),
    ("Explain the ingest pipeline.", "explanation"),
    ("who calls build_index?", "usage"),
    ("can the parser fail on empty input", "explanation"),
    ("retry policy", "definition"),
])
def test_the_texts_shape_decides_the_issue_route(text: str, route: str) -> None:
    assert route_question(text).intent.route == route


def test_a_pasted_report_is_an_issue_whatever_it_starts_with() -> None:
    long_text = "What is going on here " + "the cart total is wrong after a discount " * 5
    assert is_pasted(long_text, ROUTING) and route_question(long_text).intent.route == "issue"
    assert is_pasted("line one\nline two", ROUTING)
    assert not is_pasted("one line, short", ROUTING)
    assert not is_change_or_bug("how do I fix the cart?", ROUTING)


def test_a_slash_inside_a_word_is_not_a_scope() -> None:
    assert route_question("Don't use background task in HTTP/1.1 dispatcher").intent.scope is None
    assert route_question("where is the index built in indexers/?").intent.scope == "indexers/"


def test_traceback_frames_name_files_functions_and_the_error() -> None:
    # innermost first: where the error arises, then its callers
    assert frame_paths(TRACEBACK) == ["shop/pricing.py", "shop/cart.py"]
    assert frame_names(TRACEBACK) == ["price_of", "add_item", "KeyError"]
    assert headline(TRACEBACK) == "Client hangs on redirect"
    bare = TRACEBACK.split("\n", 2)[2]
    assert headline(bare) == "KeyError: 'apple'"
    plan = route_question(TRACEBACK)
    assert {"shop/cart.py", "shop/pricing.py"} <= set(plan.intent.path_hints)
    assert plan.intent.terms[:2] == ("price_of", "add_item")
    # the story's scope words are not a scope: a pasted "in shop/" restricts nothing
    assert route_question(TRACEBACK + "\nIt fails in shop/ only.").intent.scope is None


CHAINED = """Traceback (most recent call last):
  File "/srv/app/shop/cart.py", line 30, in checkout
    total = compute_total(items)
  File "/srv/app/shop/pricing.py", line 8, in compute_total
    return sum(TABLE[i] for i in items)
KeyError: 'apple'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/srv/app/shop/views.py", line 5, in handle
    return checkout(request.items)
  File "/srv/app/shop/compat.py", line 40, in reraise
    raise value.with_traceback(tb)
shop.errors.CheckoutError: cannot check out
"""
JAVA = """java.lang.IllegalStateException: closed
    at com.shop.Pool.acquire(Pool.java:88)
    at com.shop.Client.send(Client.java:12)
"""


def test_a_chained_traceback_leads_with_where_the_error_arises() -> None:
    # not the re-raise helper at the bottom of the last traceback
    assert frame_paths(CHAINED) == ["shop/pricing.py", "shop/cart.py", "shop/compat.py",
                                    "shop/views.py"]
    assert frame_names(CHAINED)[:2] == ["compute_total", "checkout"]
    assert route_question(CHAINED).intent.path_hints[0] == "shop/pricing.py"
    assert frame_paths(JAVA) == ["Pool.java", "Client.java"]  # innermost first already
    assert frame_names(JAVA)[:2] == ["acquire", "send"]


def test_a_long_subject_spells_names_in_bounded_time() -> None:
    plan = route_question("where is " + "alpha beta gamma delta " * 6)  # 26 words: a question
    started = time.perf_counter()
    names = question_names(plan, True, ROUTING)
    assert time.perf_counter() - started < 1.0
    assert all(len(n.split("_")) <= 5 for n, _ in names)


def test_file_fusion_adds_the_votes_of_different_chunks_of_one_file() -> None:
    settings = RetrievalSettings(rrf_k=10)
    paths = {"a1": "a.py", "a2": "a.py", "b1": "b.py", "c1": "c.py"}
    lists = [Ranked(channel="bm25", query="q", chunk_ids=("b1", "a1", "c1")),
             Ranked(channel="dense", query="q", chunk_ids=("a2", "c1", "b1"))]
    by_chunk = rrf(lists, settings, {"bm25": 1.0, "dense": 1.0}, {})
    by_file, more = rrf_files(lists, by_chunk, paths, settings, {"bm25": 1.0, "dense": 1.0}, {})
    assert [paths[f.chunk_id] for f in by_file] == ["a.py", "b.py", "c.py"]
    # a.py's other chunk follows it, scored just below it and above b.py
    other = ({"a1", "a2"} - {by_file[0].chunk_id}).pop()
    assert [f.chunk_id for f in more] == [other]
    assert by_file[1].score < more[0].score < by_file[0].score
    # chunk by chunk, a.py's two chunks split its votes and b.py led
    assert paths[by_chunk[0].chunk_id] == "b.py"
    assert by_file[0].score == pytest.approx(1 / 12 + 1 / 11)
    shown = {f.chunk_id for f in by_file}
    assert len(shown) == 3 and shown <= set(paths)


def test_file_fusion_is_one_chunk_per_file_ties_by_path() -> None:
    settings = RetrievalSettings(rrf_k=10)
    paths = {"x": "z.py", "y": "m.py"}
    lists = [Ranked(channel="bm25", query="q", chunk_ids=("x",)),
             Ranked(channel="dense", query="q", chunk_ids=("y",))]
    fused = [Fused(chunk_id="x", score=1.0, reasons=(rank_reason("bm25", 1),)),
             Fused(chunk_id="y", score=1.0, reasons=(rank_reason("dense", 1),))]
    by_file, more = rrf_files(lists, fused, paths, settings, {"bm25": 1.0, "dense": 1.0}, {})
    assert [paths[f.chunk_id] for f in by_file] == ["m.py", "z.py"] and more == []


SHOP = {
    "shop/websockets.py": "def close_socket(code):\n    return code\n",
    "shop/pricing.py": "TABLE = {}\n\ndef price_of(item):\n    return TABLE[item]\n",
    "shop/cart.py": ("from shop.pricing import price_of\n\nclass Cart:\n"
                     "    def add_item(self, item):\n        return price_of(item)\n"),
    "tests/test_cart.py": ("from shop.cart import Cart\n\ndef test_discount_applies_once():\n"
                           "    assert Cart().add_item('apple')\n"),
    "docs/cart.md": "# Cart\n\nThe cart adds items and applies a discount.\n",
}


def test_path_words_rank_files_by_the_words_of_their_path() -> None:
    index = files_index(SHOP)
    found = execute(index, Request(channel="path_words", query="the websocket close code",
                                   k=5, no_tests=True), None).found
    assert found[0].chunk.path == "shop/websockets.py"
    assert not execute(index, Request(channel="path_words", query="of a", k=5), None).found


def test_test_targets_are_what_the_most_similar_tests_exercise() -> None:
    index = files_index(SHOP)
    found = execute(index, Request(channel="test_targets", query="discount applies once",
                                   k=5), None).found
    assert {f.chunk.path for f in found} == {"shop/cart.py"}
    assert {f.chunk.symbol for f in found} <= {"Cart", "Cart.add_item"}


def test_an_issue_answer_names_the_source_first() -> None:
    index = files_index(SHOP)
    env = ask(index, "Fix the discount applied twice when an item is added to the cart")
    assert env.route == "issue" and env.llm_steps == 0
    assert env.evidence[0].path.startswith("shop/")
    assert env.answer.startswith("The code this most likely concerns is")
    # one chunk per file first: the files in the order their first chunks come
    paths = [e.path for e in env.evidence]
    firsts = list(dict.fromkeys(paths))
    assert firsts[0].startswith("shop/") and "tests/test_cart.py" not in firsts[:2]


def test_a_route_policy_is_data_in_the_config_hash(tmp_path: object) -> None:
    base = HelixConfig()
    changed = load_config(None, flags={"retrieval.routes": {"issue": {"rrf_k": 20}}}, env={})
    assert changed.retrieval.route("issue").rrf_k == 20
    # the other routes and the issue route's other fields keep their defaults
    assert changed.retrieval.route("usage") == base.retrieval.route("usage")
    assert changed.retrieval.route("issue").fuse_files
    assert changed.evidence_hash != base.evidence_hash


def test_a_long_question_that_names_tests_asks_for_them() -> None:
    from controller.moves import asks_tests
    from helix.core.config import RetrievalSettings

    settings = RetrievalSettings()
    question = ("What is the conceptual role of the handshake mechanism in the test class for "
                "HTTP output operations, and how does it coordinate the writer thread with the "
                "stream that the test fixture opens?")
    report = ("The HTTP output writer hangs when the stream closes early; the test for it "
              "passes locally but fails on CI with a timeout in the writer thread after the "
              "server disconnects, see the attached log.")
    assert route_question(question).intent.route == "issue"  # long: read as a report
    assert asks_tests(route_question(question), settings)  # ... but it asks about tests
    assert route_question(report).intent.route == "issue"
    assert not asks_tests(route_question(report), settings)  # a report's story mentions them
