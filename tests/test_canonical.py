"""Among same-named definitions, the one the others' files import comes first
(`controller.canonical`): the base a dialect's override builds on."""

from __future__ import annotations

from controller.canonical import canonical_order
from helix.core.schemas import Chunk
from tests.controller_helpers import ask, files_index


def _chunk(path: str, symbol: str, line: int = 1) -> Chunk:
    return Chunk(id=f"{path}:{line}", path=path, kind="code_def", lang="python",
                 start_line=line, end_line=line + 5, text="", content_hash="sha256:0",
                 symbol=symbol, node_id=f"def:{path}::{symbol}")


def test_the_imported_definition_takes_its_groups_first_place() -> None:
    chunks = [_chunk("d/pg.py", "DropView"), _chunk("d/other.py", "Helper"),
              _chunk("d/tsql.py", "DropView"), _chunk("d/ansi.py", "DropView")]
    importers = {"d/ansi.py": frozenset({"d/pg.py", "d/tsql.py"})}
    order = canonical_order(chunks, lambda p: importers.get(p, frozenset()))
    assert [chunks[i].path for i in order] == ["d/ansi.py", "d/other.py", "d/pg.py",
                                               "d/tsql.py"]
    # nobody imports anybody: the order stays
    assert canonical_order(chunks, lambda p: frozenset()) == [0, 1, 2, 3]


BASE = '''class DropViewStatementSegment:
    """A DROP VIEW statement."""

    match_grammar = ["DROP", "VIEW", "IfExistsGrammar", "TableReference"]
'''


def _override(dialect: str) -> str:
    return f'''from base import dialect_base


class DropViewStatementSegment(dialect_base.DropViewStatementSegment):
    """A DROP VIEW statement in {dialect}: the drop view statement grammar with optional IF
    EXISTS, the view reference, and the drop behaviour of the drop view statement."""

    match_grammar = ["DROP", "VIEW", "IfExistsGrammar", "TableReference", "CASCADE"]
'''


def test_the_base_definition_leads_the_answer() -> None:
    files = {"base/dialect_base.py": BASE, "base/__init__.py": "",
             "dialects/pg.py": _override("Postgres"), "dialects/tsql.py": _override("T-SQL"),
             "dialects/mysql.py": _override("MySQL")}
    env = ask(files_index(files), "How does the drop view statement grammar handle IF EXISTS?")
    first = next(e for e in env.evidence if e.symbol == "DropViewStatementSegment")
    assert first.path == "base/dialect_base.py"


def test_a_file_the_question_names_takes_the_first_place_instead() -> None:
    chunks = [_chunk("d/dialect_pg.py", "Merge"), _chunk("d/dialect_ansi.py", "Merge"),
              _chunk("d/dialect_hive.py", "Merge")]
    importers = {"d/dialect_ansi.py": frozenset({"d/dialect_pg.py", "d/dialect_hive.py"})}
    order = canonical_order(chunks, lambda p: importers.get(p, frozenset()),
                            frozenset({"merge", "in", "the", "hive", "dialect"}))
    assert chunks[order[0]].path == "d/dialect_hive.py"
    # "dialect", in every member's name, names none of them
    order = canonical_order(chunks, lambda p: importers.get(p, frozenset()),
                            frozenset({"merge", "dialect"}))
    assert chunks[order[0]].path == "d/dialect_ansi.py"
