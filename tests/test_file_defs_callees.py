"""Round 17: the definitions of other files that the first files' evidence items call
(`file_defs.callees`, `controller.callees.across`), and the items the depth picks cut from the
tail competing for the same places (`file_defs.recut`). Both fail on round 16's code (no
`across`; the driver neither reads callees for the tail nor returns a cut item)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from controller_helpers import def_chunk

from controller.callees import across
from helix.core.policy import FileDefsPolicy
from helix.core.schemas import Chunk

POLICY = FileDefsPolicy(enabled=True)
QUESTION = frozenset({"paste", "targets", "props", "remove", "key"})


PASTE = def_chunk("ui/clipboard.py", "Clipboard", "class Clipboard:\n    targets = []\n", 1)
RENDER = def_chunk("ui/clipboard.py", "Clipboard.render", "def render(self):\n    tag()\n", 10)
REMOVE = def_chunk("ui/tag.py", "Tag.remove_props", "def remove_props(self, *names):\n", 80)
ADD = def_chunk("ui/tag.py", "Tag.add", "def add(self, child):\n", 60)
SAME = def_chunk("ui/clipboard.py", "Clipboard.remove_props_key", "def remove_props_key():\n", 30)
WEAK = def_chunk("ui/misc.py", "helper", "def helper():\n    pass\n", 5)
CALLS = {RENDER.id: [REMOVE, ADD, SAME], PASTE.id: [REMOVE]}


def _calls(chunk: Chunk) -> list[Chunk]:
    return CALLS.get(chunk.id, [])


def test_across_takes_the_best_callee_in_another_file() -> None:
    best = across(QUESTION, [PASTE, RENDER], _calls, 2, POLICY)
    assert best == [(REMOVE, PASTE)]  # ADD scores under reach_min; SAME is a shown file's
    assert across(QUESTION, [PASTE, RENDER], _calls, 0, POLICY) == []
    assert across(QUESTION, [PASTE, RENDER, REMOVE], _calls, 2, POLICY) == []  # shown already
    low = POLICY.model_copy(update={"reach_min": 0.0})
    assert across(QUESTION, [RENDER], _calls, 2, low) == [(REMOVE, RENDER), (ADD, RENDER)]
    assert across(QUESTION, [RENDER], _calls, 1, low) == [(REMOVE, RENDER)]


def _driver(callees: int, recut: bool, asks: bool = True) -> list[str]:
    """`controller.driver._with_file_definitions` on a five-item evidence list (budget 5):
    clipboard.py first, misc.py's helper twice; clipboard.py's best definition not shown (the
    depth pick) takes the tail and cuts the last item."""
    from controller.driver import _with_file_definitions
    from controller.evidence import Candidate
    from helix.core.config import HelixConfig

    weak = [WEAK.model_copy(update={"id": f"misc:{i}"}) for i in range(2)]
    answer = def_chunk("ui/keys.py", "paste_key_targets", "def paste_key_targets():\n", 3)
    ranked = [Candidate(chunk=c, score=1.0, reasons=(), step=0)
              for c in (PASTE, RENDER, *weak, answer)]
    files = {"ui/clipboard.py": [PASTE, RENDER, SAME]}
    nodes = {c.node_id: c for c in (REMOVE, ADD, SAME)}
    by_node = {PASTE.node_id: CALLS[PASTE.id], RENDER.node_id: CALLS[RENDER.id]}

    class Graph:
        def __contains__(self, node: str) -> bool:
            return node in by_node

        def out_edges(self, node: str, keys: bool) -> list[tuple[str, str, str]]:
            return [(node, c.node_id, "calls") for c in by_node[node]]

    index = SimpleNamespace(chunks_for_path=lambda path: files.get(path, []), graph=Graph(),
                            chunk_for_node=nodes.get)
    plan = SimpleNamespace(term_words=QUESTION, intent=SimpleNamespace(route="explanation"),
                           asked=SimpleNamespace(reads_as_question=asks))
    config = HelixConfig().model_copy(deep=True)
    policy = config.retrieval.file_defs.model_copy(update={
        "callees": callees, "recut": recut, "reach": 0, "depth": 1, "depth_at": 1,
        "depth_lead": 0, "lead_files": 1, "files": 1})
    config = config.model_copy(update={"retrieval": config.retrieval.model_copy(
        update={"file_defs": policy, "max_evidence": 5})})
    out = _with_file_definitions(cast(Any, plan), ranked, cast(Any, index), config)
    return [c.chunk.id for c in out]


def test_the_driver_puts_a_callee_and_a_cut_item_over_the_weakest_repeat() -> None:
    """Off: the depth pick (clipboard.py's `remove_props_key`) takes the tail and cuts the
    answering `paste_key_targets`. `callees`: tag.py's `remove_props`, called by the
    clipboard, takes the weakest repeat's place (the later misc.py item: misc.py keeps one);
    `recut`: the cut item comes back there, and with both the better of the two. A text that
    does not read as a question keeps the tail."""
    head = ["ui/clipboard.py:1", "ui/clipboard.py:10", "misc:0"]
    plain = _driver(0, False)
    assert plain == [*head, "misc:1", "ui/clipboard.py:30"]
    assert _driver(1, False) == [*head, "ui/tag.py:80", "ui/clipboard.py:30"]
    assert _driver(0, True) == [*head, "ui/keys.py:3", "ui/clipboard.py:30"]
    assert _driver(1, True) == [*head, "ui/keys.py:3", "ui/clipboard.py:30"]
    assert _driver(1, True, asks=False) == plain
