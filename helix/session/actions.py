"""The read-only acts of the continuity lanes that need the repository or the session log.

    open_span        show a span of a file (selection T3 / T5); never outside the root
    graph_list       callers / tests of the focused definition over the index graph (T4):
                     no root retrieval, the graph's `calls` and `tests` edges only
    meta_answer      a question about the last answer object (T8): from its envelope, no replay
    recap            did we talk about X (T9): from the stored turns only, never invented
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from controller.continuity.state import OptionSet, TargetRef
from helix.core.errors import BadPathError
from helix.session.optionsets import make_option_set
from helix.session.turn import OpenedSpan, TurnResult

if TYPE_CHECKING:
    import networkx as nx

GraphKind = Literal["callers", "tests"]
RECAP_MAX_MATCHES = 5
META_MAX_PLACES = 8
_TEST_PATH = re.compile(r"(^|/)(tests?|__tests__|testing)/|(^|/)test_[^/]*$|_test\.[a-z]+$")
_STOP = frozenset({"the", "a", "an", "we", "about", "it", "that", "this", "of", "in", "on",
                   "and", "or", "to", "is", "are", "did", "do", "you", "talk", "what"})


def open_span(root: Path, target: TargetRef, max_lines: int) -> OpenedSpan:
    """Read `target`'s lines from the repository (read-only, inside the root only)."""
    if not target.path:
        raise BadPathError(f"{target.label or target.id} has no file to open")
    base = root.resolve()
    path = (base / target.path).resolve()
    if not path.is_relative_to(base) or not path.is_file():
        raise BadPathError(f"cannot open {target.path}: not a file inside {base}")
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    start = max(1, target.start_line or 1)
    end = min(len(lines), target.end_line or len(lines))
    shown_end = min(end, start + max_lines - 1)
    text = "\n".join(f"{n:>5}  {lines[n - 1]}" for n in range(start, shown_end + 1))
    return OpenedSpan(path=target.path, start_line=start, end_line=shown_end, text=text,
                      truncated=shown_end < end, target=target)


def _defs_for(graph: nx.MultiDiGraph, target: TargetRef) -> list[str]:
    """The definition node(s) a focused target stands for."""
    if target.id in graph and str(target.id).startswith("def:"):
        return [target.id]
    if not target.path:
        return []
    inside = []
    for node, attrs in graph.nodes(data=True):
        if not str(node).startswith("def:") or attrs.get("path") != target.path:
            continue
        start, end = attrs.get("start_line", 0), attrs.get("end_line", 0)
        if target.start_line is None or (start <= (target.end_line or target.start_line)
                                         and end >= target.start_line):
            inside.append((end - start, start, str(node)))
    inside.sort()
    return [node for _, _, node in inside[:1]] if target.start_line else [
        node for _, _, node in sorted(inside, key=lambda x: (x[1], x[2]))]


def graph_list(graph: nx.MultiDiGraph, target: TargetRef, kind: GraphKind, *, turn_id: int,
               max_items: int) -> tuple[list[str], OptionSet | None, int]:
    """(definition nodes resolved, the list as an option set, total found before the cap)."""
    defs = _defs_for(graph, target)
    found: dict[str, dict] = {}
    for node in defs:
        for source, _, key in graph.in_edges(node, keys=True):
            attrs = graph.nodes[source]
            is_test = bool(_TEST_PATH.search(str(attrs.get("path", ""))))
            wanted = (key == "calls" if kind == "callers"
                      else key == "tests" or (key == "calls" and is_test))
            if wanted and source not in defs:
                found[str(source)] = attrs
    ordered = sorted(found.items(), key=lambda kv: (str(kv[1].get("path", "")),
                                                    int(kv[1].get("start_line", 0)), kv[0]))
    entries = []
    for node, attrs in ordered[:max_items]:
        path = str(attrs.get("path", ""))
        title = str(attrs.get("title") or node.rsplit("::", 1)[-1])
        ref = TargetRef(kind="symbol" if node.startswith("def:") else "file", id=node,
                        label=title, path=path or None, start_line=attrs.get("start_line"),
                        end_line=attrs.get("end_line"), symbol=title)
        entries.append((node, title, f"{path}:{attrs.get('start_line', '?')}", ref, None))
    scope = kind
    return defs, make_option_set(turn_id, kind, scope, entries), len(ordered)


def describe_list(kind: GraphKind, target: TargetRef, option_set: OptionSet | None,
                  total: int, defs: Sequence[str]) -> str:
    name = target.symbol or target.label or target.id
    if not defs:
        return (f"{name} is not a definition in the index graph, so it has no {kind} "
                "edges to follow.")
    if option_set is None:
        what = "callers of" if kind == "callers" else "tests exercising"
        return f"The index graph has no {what} {name} (calls/tests edges; no root search ran)."
    what = "callers of" if kind == "callers" else "tests exercising"
    more = f" (showing {len(option_set.items)} of {total})" if total > len(option_set.items) else ""
    return f"{len(option_set.items)} {what} {name} in the index graph{more}:"


def meta_answer(answer_turn: TurnResult, question: str) -> tuple[str, str]:
    """(answer text, truth mode) about an earlier answer, from its stored envelope only."""
    env = answer_turn.envelope
    if env is None:
        listed = len(answer_turn.shown.items) if answer_turn.shown else 0
        return (f"Turn {answer_turn.turn_id} ({answer_turn.intent}) listed {listed} item(s) "
                "from the index graph; edges resolved by name can miss dynamic calls. Nothing "
                "was re-run.", "limited")
    defs = [e for e in env.evidence if e.kind == "definition"]
    places = defs or list(env.evidence)
    files = list(dict.fromkeys(e.path for e in env.evidence))
    kept = {e.chunk_id for e in env.evidence}
    unkept = [h for h in env.items.repo_search_hits if h.chunk_id not in kept]
    lines = [f"About turn {answer_turn.turn_id} (\"{env.question}\"), without re-running it:"]
    if not env.evidence:
        lines.append("That answer found no evidence, so it cannot say where anything is.")
        return "\n".join(lines), "unsupported"
    head = f"It rests on {len(env.evidence)} evidence span(s) in {len(files)} file(s)"
    lines.append(f"{head}; {len(defs)} definition(s):" if defs else f"{head}:")
    lines += [f"  - {e.path}:{e.start_line}-{e.end_line}" + (f" {e.symbol}" if e.symbol else "")
              for e in places[:META_MAX_PLACES]]
    if len(places) == 1:
        lines.append("So within the evidence it gathered, that is the only place.")
    scope = env.items.intent.scope
    if scope:
        lines.append(f"The search was limited to {scope}.")
    if unkept:
        lines.append(f"The controller also saw {len(unkept)} candidate(s) it did not keep, e.g. "
                     + ", ".join(f"{h.path}:{h.start_line}" for h in unkept[:3]) + ".")
    coverage = env.items.slot_coverage_report
    lines.append(f"Coverage {coverage.ratio:.2f} ({', '.join(coverage.missing) or 'no slot'} "
                 f"missing); stop reason {env.stop_reason}.")
    truth = "confirmed" if coverage.ratio >= 1.0 and not coverage.missing else "limited"
    return "\n".join(lines), truth


def _stem(word: str) -> str:
    for suffix in ("ization", "izer", "izers", "ing", "ers", "er", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def topic_terms(topic: str) -> list[str]:
    words = re.findall(r"[a-z0-9_]+", topic.lower())
    return [_stem(w) for w in words if w not in _STOP and len(w) >= 3]


def _turn_text(turn: TurnResult) -> str:
    parts = [turn.text, turn.answer]
    if turn.envelope is not None:
        parts += [e.path for e in turn.envelope.evidence]
    if turn.shown is not None:
        parts += [f"{i.label} {i.sublabel}" for i in turn.shown.items]
    if turn.opened is not None:
        parts.append(turn.opened.path)
    return " ".join(parts).lower()


def recap(turns: Sequence[TurnResult], topic: str | None) -> tuple[str, list[int]]:
    """(answer, matching turn ids) from the stored turns only."""
    earlier = [t for t in turns if t.lane != "recap"]
    if not earlier:
        return "Nothing yet: this session has no earlier turns.", []
    if not topic:
        lines = [f"This session has {len(earlier)} earlier turn(s):"]
        lines += [f"  {t.turn_id}. \"{t.text}\" -> {t.lane} {t.transition}"
                  for t in earlier[-RECAP_MAX_MATCHES * 2:]]
        return "\n".join(lines), [t.turn_id for t in earlier]
    terms = topic_terms(topic)
    if not terms:
        return f"I cannot tell what \"{topic}\" refers to; no earlier turn was searched.", []
    hits = [t for t in earlier if all(term in _turn_text(t) for term in terms)]
    if not hits:
        return (f"No. None of the {len(earlier)} earlier turn(s) of this session mention "
                f"\"{topic}\".", [])
    lines = [f"Yes, \"{topic}\" came up in {len(hits)} turn(s):"]
    for turn in hits[-RECAP_MAX_MATCHES:]:
        where = ""
        if turn.envelope is not None:
            paths = [e.path for e in turn.envelope.evidence if any(
                term in e.path.lower() for term in terms)]
            if paths:
                where = f" (evidence: {', '.join(dict.fromkeys(paths[:3]))})"
        elif turn.opened is not None:
            where = f" (opened {turn.opened.path}:{turn.opened.start_line})"
        lines.append(f"  turn {turn.turn_id}: \"{turn.text}\"{where}")
    return "\n".join(lines), [t.turn_id for t in hits]
