"""The deterministic answer quotes documentation without its Markdown furniture and code
exactly as written."""

from __future__ import annotations

from controller.answer import _quote, build_answer
from controller.route import route_question
from helix.core.envelope import EvidenceItem, SlotCoverage


def _item(path: str, text: str, node_id: str, kind: str = "doc") -> EvidenceItem:
    return EvidenceItem(id="ev-1", path=path, start_line=10, end_line=12, kind=kind,  # type: ignore[arg-type]
                        score=1.0, content_hash="sha256:0", node_id=node_id, reasons=(),
                        text=text, chunk_id="c1")


def test_doc_quotes_lose_bullets_headings_and_emphasis() -> None:
    assert _quote("- **Tokenizer**: splits words", markdown=True) == "Tokenizer: splits words"
    assert _quote("## Retry policy", markdown=True) == "Retry policy"
    assert _quote("> 1. first __step__", markdown=True) == "first step"


def test_code_quotes_keep_every_character() -> None:
    for line in ("*ptr = value;", "- 1", "def f(a, *args, **kw):", "x = a ** b"):
        assert _quote(line) == line


def test_answer_shows_no_raw_markdown_bullet() -> None:
    plan = route_question("How does the tokenizer split words?")
    doc = _item("README.md", "## Tokenizer\n- **Tokenizer** splits words on case changes.",
                "sec:README.md#tokenizer")
    answer = build_answer(plan, [doc], SlotCoverage(required=(), covered=(), missing=(),
                                                    ratio=1.0), None)
    assert "Tokenizer splits words on case changes. [README.md:11-11]" in answer
    assert "- -" not in answer and "**" not in answer


def test_a_decorated_definition_is_quoted_by_its_signature() -> None:
    plan = route_question("How do I detect a negative cycle?")
    code = _item("algo/weighted.py", '@nx._dispatchable(edge_attrs="weight")\n'
                 'def negative_edge_cycle(G, weight="weight"):\n'
                 '    """Returns True if there exists a negative edge cycle anywhere in G."""\n'
                 "    return False\n", "def:algo/weighted.py::negative_edge_cycle", "code")
    code = code.model_copy(update={"symbol": "negative_edge_cycle"})
    answer = build_answer(plan, [code], SlotCoverage(required=(), covered=(), missing=(),
                                                     ratio=1.0), None)
    assert ('`negative_edge_cycle`: def negative_edge_cycle(G, weight="weight"): Returns True if '
            "there exists a negative edge cycle anywhere in G.") in answer
    assert "@nx" not in answer


def test_an_explanation_shows_the_best_other_code_under_its_own_heading() -> None:
    plan = route_question("How do I detect a negative cycle in a weighted graph?")
    named = _item("algo/weighted.py", "def negative_edge_cycle(G):\n    return False\n",
                  "def:algo/weighted.py::negative_edge_cycle", "code")
    others = [_item(f"algo/other{i}.py", f"def helper{i}(G):\n    return {i}\n",
                    f"def:algo/other{i}.py::helper{i}", "code") for i in range(3)]
    text = ("def negative_edge_cycle(G):\n    '''detect negative cycle weighted graph'''\n"
            "    return False\n")
    named = named.model_copy(update={"text": text, "symbol": "negative_edge_cycle"})
    cov = SlotCoverage(required=(), covered=(), missing=(), ratio=1.0)
    answer = build_answer(plan, [named, *others], cov, None)
    assert answer.index("Where it is implemented:") < answer.index("Also found (best first):")
    assert "algo/other0.py" in answer and "algo/other1.py" in answer
    assert "algo/other2.py" not in answer  # three code claims in all


def test_missing_slots_are_said_in_plain_words() -> None:
    plan = route_question("How does the tokenizer split words?")
    doc = _item("README.md", "## Tokenizer\nSplits words.", "sec:README.md#tokenizer")
    cov = SlotCoverage(required=("topic", "mechanism"), covered=("topic",),
                       missing=("mechanism",), ratio=0.5)
    answer = build_answer(plan, [doc], cov, None)
    assert answer.endswith("(Not shown by the evidence: code that does it.)")


def test_a_multi_line_decorator_is_skipped_to_the_def_line() -> None:
    plan = route_question("where is the index command?")
    code = _item("cli/index_cmd.py", "@click.command()\n@click.option(\n"
                 '    "--index-dir",\n    help="Where the index lives.")\n'
                 "def index(index_dir):\n    \"\"\"Index a repository.\"\"\"\n",
                 "def:cli/index_cmd.py::index", "definition")
    code = code.model_copy(update={"symbol": "index"})
    answer = build_answer(plan, [code], SlotCoverage(required=(), covered=(), missing=(),
                                                     ratio=1.0), None)
    assert "`index`: def index(index_dir): Index a repository." in answer


def test_a_location_answer_does_not_call_a_test_documentation() -> None:
    plan = route_question("where is the search index built?")
    test = _item("tests/test_build.py", "def test_search_index_built():\n    assert True\n",
                 "def:tests/test_build.py::test_search_index_built", "test")
    doc = _item("README.md", "## Search index\nThe search index is built by build().",
                "sec:README.md#search-index")
    answer = build_answer(plan, [test, doc], SlotCoverage(required=(), covered=(), missing=(),
                                                          ratio=1.0), None)
    documented = answer.split("Documented in:", 1)[1]
    assert "README.md" in documented and "tests/test_build.py" not in documented
