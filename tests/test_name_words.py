"""Definitions whose names spell a question's words (`controller.name_words`, the
`name_words` channel of long questions)."""

from __future__ import annotations

from controller_helpers import ask, files_index

from controller.name_words import NameTable
from controller.text import token_set
from helix.core.config import HelixConfig
from indexers.formats import DefRow


def _def(path: str, qualname: str, line: int = 1) -> DefRow:
    return DefRow(name=qualname.rsplit(".", 1)[-1], qualname=qualname, kind="function",
                     path=path, start_line=line, end_line=line + 3, scope=None,
                     node_id=f"def:{path}::{qualname}")


DEFS = [_def("a/state.py", "StateManager.get_state"),
        _def("a/state.py", "StateManager.set_state", 10),
        _def("a/disk.py", "DiskStateManager.persist_token_state"),
        _def("a/ctx.py", "BrowserCtx.close"),
        _def("a/misc.py", "get_value"),
        _def("a/misc.py", "set_value", 10)]


def _ranked(question: str) -> list[str]:
    return [d.qualname for _s, d in NameTable(DEFS).rank(token_set(question), 10)]


def test_the_name_that_spells_most_of_the_question_comes_first() -> None:
    assert _ranked("how is the token state persisted to disk")[0] == (
        "DiskStateManager.persist_token_state")


def test_one_shared_word_is_not_enough() -> None:
    assert _ranked("what does get do") == []
    assert "get_value" not in _ranked("how do I get the state")


def test_a_rarer_word_weighs_more_and_ties_go_by_path() -> None:
    # "state" is in three names, "manager" in three; "set" in two: set_state leads get_state
    assert _ranked("set the state manager")[:2] == ["StateManager.set_state",
                                                    "StateManager.get_state"]
    assert _ranked("state manager") == ["StateManager.get_state", "StateManager.set_state",
                                        "DiskStateManager.persist_token_state"]


def test_short_forms_in_names_read_as_the_words_they_stand_for() -> None:
    assert _ranked("closing the browser context") == ["BrowserCtx.close"]


DISCOUNTS = {
    "shop/pricing.py": (
        "class Cart:\n    def apply_loyalty_discount(self, rate):\n"
        "        self.total = self.total * (1 - rate)\n"),
    "shop/docs_helpers.py": (
        '"""Helpers used when a customer cart is shown: the loyalty programme text, the\n'
        'discount banner and how the customer sees the cart total."""\n\n'
        "def banner(customer, cart):\n"
        '    return f"{customer} cart total {cart.total} loyalty discount customer cart"\n'),
}
QUESTION = ("When a returning customer pays, which method lowers the cart total by the "
            "loyalty discount rate of the customer, and how is it applied to the cart?")


def test_a_long_question_reaches_the_definition_its_words_name() -> None:
    index = files_index(DISCOUNTS)
    on = ask(index, QUESTION)
    assert on.evidence[0].path == "shop/pricing.py"
    seed = [m for m in HelixConfig().retrieval.route("long_question").seed
            if m != "code_name_words"]
    off = HelixConfig.model_validate({"retrieval": {"routes": {"long_question": {"seed": seed}}}})
    assert ask(index, QUESTION, off).evidence[0].path != "shop/pricing.py"


def test_definition_rows_are_the_definitions_without_a_model_each() -> None:
    index = files_index(DISCOUNTS)
    rows = index.definition_rows()
    assert rows and [tuple(r) for r in rows] == [
        (d.name, d.qualname, d.kind, d.path, d.start_line, d.end_line, d.scope, d.node_id)
        for d in index.definitions()]


class _Rev:
    def __init__(self, rev: str) -> None:
        self.index_rev = rev
        self.reads = 0

    def definition_rows(self) -> list[DefRow]:
        self.reads += 1
        return DEFS


def test_one_table_per_index_revision_and_only_the_last_few_kept() -> None:
    from controller import name_words

    first = _Rev("rev-first")
    table = name_words.name_table(first)  # type: ignore[arg-type]
    assert name_words.name_table(first) is table and first.reads == 1  # type: ignore[arg-type]
    for n in range(name_words._TABLES.kept):
        name_words.name_table(_Rev(f"rev-{n}"))  # type: ignore[arg-type]
    assert len(name_words._TABLES.values) == name_words._TABLES.kept
    name_words.name_table(first)  # type: ignore[arg-type]
    assert first.reads == 2  # pushed out by newer revisions, built again


def _reference_rank(table: NameTable, words: frozenset[str], limit: int) -> list[tuple]:
    """The ranking as first written: BM25 per posting, every kept definition sorted."""
    scores: dict[int, float] = {}
    hits: dict[int, int] = {}
    for word in sorted(words):
        for number in table.postings.get(word, ()):
            norm = 1.0 - 0.75 + 0.75 * table.lengths[number] / table.average
            scores[number] = scores.get(number, 0.0) + table.idf[word] * (1.2 + 1) / (
                1.0 + 1.2 * norm)
            hits[number] = hits.get(number, 0) + 1
    kept = [(round(s, 9), n) for n, s in scores.items() if hits[n] >= 2]
    kept.sort(key=lambda t: (-t[0], table.defs[t[1]].path, table.defs[t[1]].start_line,
                             table.defs[t[1]].qualname))
    return [(score, table.defs[n]) for score, n in kept[:limit]]


def test_the_ranking_is_the_plain_bm25_sort_bit_for_bit() -> None:
    """Damping kept per definition and only the first `limit` selected: the same scores, the
    same order, ties included."""
    parts = ("state", "token", "get", "set", "value", "disk", "manager", "close", "persist")
    defs = [_def(f"p/m{n % 7}.py", f"{parts[n % 9].title()}{parts[(n * 5) % 9].title()}."
                 f"{parts[(n * 2) % 9]}_{parts[(n * 7 + 3) % 9]}_{parts[n % 4]}", n)
            for n in range(400)]
    table = NameTable(defs)
    for question in ("get the token state", "persist disk value", "set value manager close",
                     "state token get set value disk"):
        words = token_set(question)
        for limit in (1, 5, 40, 1000):
            assert table.rank(words, limit) == _reference_rank(table, words, limit)
