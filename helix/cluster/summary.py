"""A repository in a few hundred words, and repositories ranked for a question by them.

`summarize(index, name, group, settings)` keeps, from a built index: the repository's name and
group, its top-level directories, the headings of its READMEs (shallowest first), its top-level
definitions outside tests (classes, functions, types; shallowest files first) and the first
line of each one's documentation. The registry stores it (`helix.store.repos`); it is small
(`cluster.summary_*` bound it) and deterministic (a function of the index).

`rank(question, summaries, top)` scores every summary with BM25 over the same tokens the index
uses (`indexers.tokenize`, function words and the words of asking dropped), highest first,
ties by name: the best `top` are searched. When no summary shares a word with the question,
the first `top` by name are, and the routing says so. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from helix.core.english import QUESTION_WORDS
from helix.core.envelope import RepoChoice, RepoRouting
from helix.core.scale_settings import ClusterSettings

DEFINITION_KINDS = ("class", "function", "interface", "struct", "enum", "type")
_DOC_LINE = re.compile(  # a docstring's or a doc comment's line: its text
    r'^\s*(?:"""|\'\'\'|///?|#+(?=\s)|/\*\*?|\*(?=\s))\s*(?P<text>\S.*?)\s*'
    r'(?:"""|\'\'\'|\*/)?$')
_README = re.compile(r"readme(\.[a-z]+)?$", re.IGNORECASE)


def _doc_line(text: str, limit: int) -> str:
    """The first documentation line of a definition's chunk (docstring or comment)."""
    for line in text.splitlines()[:12]:
        match = _DOC_LINE.match(line)
        if match:
            return match.group("text")[:limit]
    return ""


def _depth(path: str) -> int:
    return path.count("/")


def summarize(index: Any, name: str, group: str, settings: ClusterSettings
              ) -> dict[str, Any]:
    """The summary of one repository's built index (see the module docstring)."""
    from indexers.graph import is_test_path

    paths = sorted((f.path for f in index.files()), key=lambda p: (_depth(p), p))
    dirs = sorted({p.split("/", 1)[0] for p in paths if "/" in p})
    headings: list[str] = []
    for path in (p for p in paths if _README.search(p.rsplit("/", 1)[-1])):
        for chunk in index.chunks_for_path(path):
            if chunk.heading_path and chunk.heading_path[-1] not in headings:
                headings.append(chunk.heading_path[-1])
    definitions = sorted(
        (d for d in index.definitions() if d.scope is None and d.kind in DEFINITION_KINDS
         and not is_test_path(d.path)),
        key=lambda d: (_depth(d.path), d.path, d.start_line, d.qualname))
    identifiers: list[list[str]] = []
    seen: set[str] = set()
    for d in definitions:
        if len(identifiers) >= settings.summary_identifiers:
            break
        if d.name in seen:
            continue
        seen.add(d.name)
        chunk = index.chunk_for_node(d.node_id) if settings.summary_doc_chars else None
        identifiers.append([d.name, _doc_line(chunk.text, settings.summary_doc_chars)
                            if chunk is not None else ""])
    return {"name": name, "group": group, "dirs": dirs[:settings.summary_headings],
            "headings": headings[:settings.summary_headings], "identifiers": identifiers}


def summary_text(summary: Mapping[str, Any]) -> str:
    parts = [str(summary.get("name", "")), " ".join(summary.get("dirs", ())),
             " ".join(summary.get("headings", ()))]
    parts.extend(f"{ident} {doc}" for ident, doc in summary.get("identifiers", ()))
    return "\n".join(parts)


def rank(question: str, summaries: Mapping[str, Mapping[str, Any]], top: int,
         group: str) -> RepoRouting:
    """Which repositories to search for `question`, and why (see the module docstring)."""
    from indexers.bm25 import BM25Index
    from indexers.tokenize import tokenize

    names = sorted(summaries)
    words = [t for t in tokenize(question) if t not in QUESTION_WORDS]
    tokens = {name: tokenize(summary_text(summaries[name])) for name in names}
    scored: list[tuple[float, str]] = []
    if names and words:
        index = BM25Index.build(names, [tokens[n] for n in names])
        found = dict(index.search_tokens(index.known_forms(words), len(names)))
        scored = [(round(float(found.get(n, 0.0)), 6), n) for n in names]
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    matched = [(score, name) for score, name in scored if score > 0]
    if matched:
        reason = "ranked by BM25 over each repository's summary"
        picked = matched[:top]
    else:
        reason = "no repository's summary shares a word with the question: the first by name"
        picked = [(0.0, name) for name in names[:top]]
    choices = tuple(RepoChoice(
        name=name, rank=position, score=score,
        matched=tuple(sorted({w for w in words if w in set(tokens[name])}))[:12])
        for position, (score, name) in enumerate(picked, start=1))
    return RepoRouting(group=group, considered=len(names), searched=choices, reason=reason)


def routing_line(routing: RepoRouting) -> str:
    """One line saying which repositories were searched and why."""
    shown = ", ".join(f"{c.name} ({c.score:g}{': ' + ' '.join(c.matched) if c.matched else ''})"
                      for c in routing.searched)
    return (f"searched {len(routing.searched)} of {routing.considered} repositories in "
            f"'{routing.group}': {shown}; {routing.reason}")


def sequence_of(rows: Sequence[Any]) -> dict[str, Mapping[str, Any]]:
    """{name: summary} of registry rows."""
    return {row.name: row.summary for row in rows}
