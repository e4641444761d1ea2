"""Stale-docs rules v7 (issue 34): classes of wrong alarms judged in round 6, now tune data.
A renamed class's English name in prose, a property made a plain attribute, and a transcript
of work done are no findings; each test keeps the alarm its class must not swallow."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.history_helpers import DAY, EPOCH, commit
from tests.test_stale_classes import _repo
from tests.test_stale_evidence import _evidence, _report

pytestmark = pytest.mark.usefixtures("shared_embeddings")  # tests/conftest.py

LINKS = '''class WikiLinks:
    def run(self, text):
        return text


class WikiLinkExtension:
    def __init__(self, base_url="/"):
        self.base_url = base_url
'''
LINKS_DOC = """# WikiLinks

## Syntax

Note that WikiLinks are written as a `WikiLinkExtension` turns them: see [WikiLinks](x.md).

## Extending

Subclass `WikiLinks` next to the `WikiLinkExtension` to change the link.
"""


def test_a_renamed_class_named_only_in_prose_is_no_finding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"pkg/links.py": LINKS, "docs/links.md": LINKS_DOC})
    commit(repo, "rename", {"pkg/links.py": LINKS.replace(
        "class WikiLinks:", "class WikiLinksProcessor:")}, EPOCH + DAY)
    code, report = _report(repo, capsys)
    # the English name of the feature stays true; the class a reader subclasses is gone
    assert _evidence(report) == {"Extending": [("removed-definition", "WikiLinks", 9)]}
    assert code == 1


RENDER = '''class Renderer:
    name = "html"


class Markdown:
    def __init__(self, renderer=None):
        self._renderer = renderer or Renderer()

    @property
    def renderer(self):
        return self._renderer

    def cleanup(self):
        return None
'''
RENDER_DOC = """# Advanced

## Plugins

A plugin reads `md.renderer.name` and calls `md.cleanup()` of the `Markdown` instance.
"""


def test_a_property_made_a_plain_attribute_is_no_removed_member(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"pkg/markdown.py": RENDER, "docs/advanced.md": RENDER_DOC})
    now = RENDER.replace("self._renderer = renderer or Renderer()",
                         "self.renderer: Renderer = renderer or Renderer()")
    commit(repo, "renderer is an attribute; no cleanup", {"pkg/markdown.py": now.split(
        "    @property")[0] + "    def run(self):\n        return None\n"}, EPOCH + DAY)
    _, report = _report(repo, capsys)
    assert _evidence(report) == {"Plugins": [("removed-member", "cleanup", 5)]}


def test_a_transcript_of_work_done_is_no_finding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = "def build_nodes(tree):\n    return tree\n\n\ndef run(tree):\n    return tree\n"
    entry = "# Entry 3\n\nAdded `build_nodes()` next to `run()`.\n"
    repo = _repo(tmp_path, {"pkg/ast.py": code, "docs/transcript_2.md": entry,
                            "docs/guide.md": entry})
    commit(repo, "build_nodes is gone", {"pkg/ast.py": code.split("\n\n\n")[1]}, EPOCH + DAY)
    _, report = _report(repo, capsys)
    assert {s["doc_path"] for s in report["stale"]} == {"docs/guide.md"}
