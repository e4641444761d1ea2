from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.compaction import compact, excerpt, tokens
from helix.core.envelope import EvidenceItem

KINDS = ("definition", "contract", "entrypoint", "test", "doc", "code", "tree")


def item(i: int, kind: str, lines: int, score: float = 1.0,
         path: str | None = None) -> EvidenceItem:
    text = "\n".join(f"line {n} of item {i} term" if n == lines // 2 else f"line {n} filler text"
                     for n in range(lines))
    return EvidenceItem(id=f"ev-{i:03d}", path=path or f"f{i}.py", start_line=10,
                        end_line=10 + lines - 1, kind=kind, score=score,  # type: ignore[arg-type]
                        content_hash=f"h{i}", node_id=f"file:f{i}.py", reasons=(), text=text)


items_strategy = st.lists(
    st.tuples(st.sampled_from(KINDS), st.integers(1, 60), st.floats(0, 1)),
    min_size=0, max_size=14,
).map(lambda specs: [item(i, k, n, round(s, 4)) for i, (k, n, s) in enumerate(specs)])


@settings(max_examples=150, deadline=None)
@given(items_strategy, st.integers(0, 1200))
def test_compaction_preserves_definitions_and_budget(items: list[EvidenceItem],
                                                     budget: int) -> None:
    kept = compact(items, budget, ["term"])
    assert sum(tokens(k.text) for k in kept) <= budget
    kept_ids = {k.id for k in kept}
    defs = [i for i in items if i.kind == "definition"]
    if any(d.id not in kept_ids for d in defs):
        # a definition was dropped: then nothing of a lower class is kept
        assert all(k.kind == "definition" for k in kept)
    # deterministic and independent of input order
    assert compact(list(reversed(items)), budget, ["term"]) == kept


def test_order_definitions_first_and_dedup() -> None:
    a = item(1, "doc", 3, 0.9)
    b = item(2, "definition", 3, 0.1)
    dup = a.model_copy(update={"id": "ev-999"})
    kept = compact([a, b, dup], 10_000, ["term"])
    assert [k.id for k in kept] == ["ev-002", "ev-001"]


def test_long_span_is_trimmed_around_the_match_not_dropped() -> None:
    long = item(1, "definition", 200)
    kept = compact([long], 60, ["term"])
    assert len(kept) == 1
    assert "term" in kept[0].text
    assert tokens(kept[0].text) <= 60
    assert long.start_line <= kept[0].start_line <= kept[0].end_line <= long.end_line


def test_excerpt_line_numbers_follow_the_cut() -> None:
    long = item(1, "code", 100)
    cut = excerpt(long, ["term"], 30, 2)
    first = cut.text.splitlines()[0]
    offset = int(first.split()[1])
    assert cut.start_line == long.start_line + offset


def test_long_spans_share_the_budget_instead_of_crowding_out_the_rest() -> None:
    """Two 150-line spans and six short ones, 1,000 tokens: all eight are kept, the long ones
    cut to a common cap around their matching line."""
    longs = [item(i, "code", 150, score=0.9) for i in range(2)]
    shorts = [item(i, "doc", 4, score=0.5) for i in range(2, 8)]
    kept = compact([*longs, *shorts], 1000, ["term"])
    assert len(kept) == 8
    assert sum(tokens(k.text) for k in kept) <= 1000
    cut = {k.id: k for k in kept}
    for long in longs:
        assert "term" in cut[long.id].text
        assert tokens(cut[long.id].text) < tokens(long.text)
    for short in shorts:
        assert cut[short.id] == short  # whole


def test_common_cap_is_the_largest_that_fits() -> None:
    from controller.compaction import common_cap

    assert common_cap([10, 20], 100) is None
    assert common_cap([500, 500, 10], 610, floor=1) == 300
    assert common_cap([500, 500], 10, floor=120) == 120
