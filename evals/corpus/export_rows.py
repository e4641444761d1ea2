"""Helix's own exported training records as ranker rows: a team's use trains its ranking.

A record (`helix export`, schema helix-training-record/1) holds a question, the evidence it was
answered from (path, lines, content hash) and the citations the answer made. It is accepted
when its evidence hash is the hash of its evidence list, it cites at least one item, and every
cited item is still a span of the repository's index with the same content hash (the cited
lines have not changed since). Its question is then asked again (`evals.corpus.features`'
`Recorder` in the model's place) and a candidate is relevant when it is a cited span. Records
about another repository (`repo_rev` of another history) simply fail the check.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evals.corpus.features import CaseRows, Recorder, learned
from evals.corpus.policy import index_tree
from helix.core.errors import ConfigError
from helix.core.hashing import hash_obj

RECORD_SCHEMA = "helix-training-record/1"
Span = tuple[str, int, int, str]  # path, start, end, content hash


def read_records(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the export {path}: {exc}") from None
    out = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError:
            raise ConfigError(f"{path}:{number}: not a JSON record") from None
        if isinstance(data, dict) and data.get("schema") == RECORD_SCHEMA:
            out.append(data)
    return out


def cited_spans(record: Mapping[str, Any]) -> list[Span] | None:
    """The cited evidence spans, or None when the record does not verify (its evidence hash
    is not its evidence list's, a citation names no evidence item, nothing is cited)."""
    evidence = record.get("evidence")
    if not isinstance(evidence, list) or not evidence:
        return None
    try:
        listed = [[e["path"], e["start_line"], e["end_line"], e["content_hash"]]
                  for e in evidence]
        by_id = {e["evidence_id"]: e for e in evidence}
        cited_ids = list(dict.fromkeys(c["evidence_id"] for c in record.get("citations") or ()))
    except (KeyError, TypeError):
        return None
    if hash_obj(listed) != record.get("evidence_hash") or not cited_ids:
        return None
    if any(cid not in by_id for cid in cited_ids):
        return None
    return [(by_id[c]["path"], int(by_id[c]["start_line"]), int(by_id[c]["end_line"]),
             str(by_id[c]["content_hash"])) for c in cited_ids]


def _current(index: Any, span: Span) -> bool:
    path, start, end, content = span
    return any(c.start_line == start and c.end_line == end and c.content_hash == content
               for c in index.chunks_for_path(path))


def export_rows(records: Sequence[Mapping[str, Any]], root: Path,
                overrides: Mapping[str, Any]) -> tuple[list[CaseRows], dict[str, int]]:
    """Rows of the records whose cited spans verify against `root`'s index, and counts."""
    import sqlite_utils

    from helix.runlog import RunLog
    from helix.service import ask

    index, config, _ = index_tree(root, learned(overrides))
    runlog = RunLog(sqlite_utils.Database(memory=True))
    out: list[CaseRows] = []
    counts = {"records": len(records), "accepted": 0, "unverified": 0, "changed": 0}
    for number, record in enumerate(records):
        spans = cited_spans(record)
        question = record.get("question")
        if spans is None or not isinstance(question, str) or not question.strip():
            counts["unverified"] += 1
            continue
        if not all(_current(index, s) for s in spans):
            counts["changed"] += 1
            continue
        recorder = Recorder()
        ask(question, root=root, config=config, dry_run=True, runlog=runlog,
            notify=lambda _line: None, ranker=recorder)
        wanted = set(spans)
        labels = [1 if (p.chunk.path, p.chunk.start_line, p.chunk.end_line,
                        p.chunk.content_hash) in wanted else 0 for p in recorder.pooled]
        out.append(CaseRows(f"export:{record.get('record_id', number)}", recorder.rows, labels,
                            [(p.chunk.path, p.chunk.symbol or "", p.chunk.start_line,
                              p.chunk.end_line) for p in recorder.pooled],
                            len(spans), sum(labels)))
        counts["accepted"] += 1
    runlog.close()
    return out, counts
