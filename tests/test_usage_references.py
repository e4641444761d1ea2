""""Who calls X" lists every call site the index resolved (the count `helix find` reports),
grouped by the function each stands in, the count stated once; "where is X used" adds imports
and other references."""

from __future__ import annotations

import re

from controller_helpers import ask, fixture_index


def _listed(answer: str) -> list[int]:
    """Every line number listed, as often as its `(xN)` says."""
    out: list[int] = []
    for line in answer.splitlines():
        if line.startswith("- "):
            for number, times in re.findall(r"(?<=[:, ])(\d+)(?: \(x(\d+)\))?(?=[,\]])", line):
                out += [int(number)] * int(times or 1)
    return out


def test_who_calls_lists_every_resolved_call_grouped_by_caller() -> None:
    index = fixture_index("answer_repo")
    calls = [r for r in index.references_to("decide_retry") if r.kind == "call"]
    env = ask(index, "who calls decide_retry?")
    assert len(env.references) == len(calls) and {r.kind for r in env.references} == {"call"}
    first = env.answer.splitlines()[0]
    assert first == f"{len(calls)} calls of `decide_retry`, in 3 places:"
    assert "- `fetch` [fetchy/client.py:19]: delay = decide_retry(attempt, status)" in env.answer
    assert "- `test_delay_doubles` [tests/test_retry.py:5 (x2)]" in env.answer  # two calls
    assert sorted(_listed(env.answer)) == sorted(r.line for r in calls)
    assert env.answer.count(" calls of ") == 1  # the count is stated once


def test_where_is_it_used_includes_imports() -> None:
    index = fixture_index("answer_repo")
    every = index.references_to("decide_retry")
    env = ask(index, "where is decide_retry used?")
    imports = index.imports_of("decide_retry")
    assert [r.path for r in imports] == ["fetchy/client.py", "tests/test_retry.py"]
    assert len(env.references) == len(every) + len(imports)
    assert env.answer.splitlines()[0] == "6 references of `decide_retry`, in 5 places:"
    assert "- import [fetchy/client.py:7]" in env.answer


def test_other_routes_carry_no_references() -> None:
    env = ask(fixture_index("answer_repo"), "where is the retry policy decided?")
    assert env.references == () and "references" not in env.model_dump_json()
