"""One rule for "is this a test file": the index's (which draws `tests` edges), used by the
controller's evidence kinds, the graph follow-ups ("where is it tested?") and the selection
lane ("open the test one"), so they can never disagree."""

from __future__ import annotations

import pytest

from controller.continuity.graph_focus import _is_test
from controller.continuity.selection_match import _kind_of
from controller.continuity.state import OptionItem, TargetRef
from controller.evidence import is_test
from helix.core.schemas import Chunk
from indexers.graph import is_test_path

TESTS = ["tests/test_x.py", "pkg/x_test.go", "web/app.spec.ts", "web/app.test.jsx",
         "src/test/java/FooTest.java", "lib/__tests__/a.js", "m/foo_test.py"]
NOT_TESTS = ["src/retry.py", "web/app.ts", "docs/testing-guide.md", "contest/score.py"]


def _chunk(path: str) -> Chunk:
    return Chunk(id="c", path=path, kind="code_module", lang=None, start_line=1, end_line=2,
                 text="x = 1", content_hash="sha256:0", node_id=f"file:{path}")


def _item(path: str) -> OptionItem:
    return OptionItem(id="i", index=1, label=path,
                      target=TargetRef(kind="span", id=f"file:{path}", path=path))


@pytest.mark.parametrize("path", TESTS + NOT_TESTS)
def test_every_consumer_agrees_with_the_index(path: str) -> None:
    expected = is_test_path(path)
    assert expected == (path in TESTS)
    assert is_test(_chunk(path)) == expected
    assert _is_test({"path": path}) == expected
    assert (_kind_of(_item(path)) == "test") == expected
