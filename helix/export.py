"""Training records from the run log, admitted by the DAG full-access checklist.

A record is one finished run: the question, the evidence pointers (path, lines, content_hash,
repo_rev, node id), the answer, and the graph-pack metadata (treeIds, primaryTreeId, anchorIds,
pathIds, conceptMatch, treeVersion, repo_rev, lattice_rev). Its anchor node (the tree walk's
first concept-tree anchor, else its first anchor, else the top evidence item's node) must pass
every check of the plan's checklist, and every evidence link it declares must verify against
the repository (`links`: the file at its repo_rev, its content hash; `helix.export_links`):

    inputs         a non-empty list, each with name, type, unit, source
    outputs        a non-empty list, each with name, type, unit
    evidence       code, doc and test evidence links
    versioning     repo_rev + content_hash on every evidence link
    determinism    deterministic == true and a tolerance with abs or rel
    assumptions    assumptions listed and a validity regime
    environment    a runtime and a lockfile hash
    dag_integrity  explicit dependencies that resolve, and no dependency cycle

Plain code and doc nodes carry none of these fields, so they fail unless `--include-diagnostic`
admits them marked `diagnostic`. Baselines (`--pin-baseline NAME`) are never overwritten;
other exports are variants keyed by a hash of their settings and tags.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from helix.core.config import helix_home
from helix.core.errors import (
    BaselineExistsError,
    ConfigError,
)
from helix.core.hashing import canonical_json, hash_obj, short_id
from helix.core.schemas import Frozen
from helix.outfile import check_out_path, write_out
from helix.runlog.store import RunRecord

RECORD_SCHEMA = "helix-training-record/1"
CHECKS = ("inputs", "outputs", "evidence", "versioning", "determinism", "assumptions",
          "environment", "dag_integrity")
ANCHOR_UNAVAILABLE = "anchor_unavailable"
UNREADABLE = "unreadable_row"  # a run-log row that could not be read (skipped, counted)
REQUIRED_EVIDENCE_TYPES = ("code", "doc", "test")
DEFAULT_ANSWER_MODES = ("llm",)
RECORDS_FILE = "records.jsonl"
MANIFEST_FILE = "manifest.json"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")

NodeLookup = Callable[[str, str], Mapping[str, Any] | None]  # (repo_root, node_id) -> attrs
LinkVerifier = Callable[[str, list[Any]], list[str]]  # (repo_root, links) -> failures
LINKS = "links"  # the check that the anchor's evidence links verify (`helix.export_links`)


class ExportSettings(Frozen):
    format: Literal["records", "chat"] = "records"
    include_diagnostic: bool = False
    answer_modes: tuple[str, ...] = DEFAULT_ANSWER_MODES
    variant_tags: dict[str, str] = Field(default_factory=dict)


class ExportReport(Frozen):
    considered: int
    admitted: int  # full-access records
    diagnostic: int  # admitted only because --include-diagnostic
    rejected: int  # failed the checklist and not admitted
    failed_checks: dict[str, int]  # check -> records failing it (a record can fail several)
    skipped: dict[str, int]  # runs that were not candidates, by reason
    out: str
    stored_at: str
    kind: Literal["baseline", "variant"]
    records_hash: str


# ---------------------------------------------------------------- the checklist (pure)

def _filled(value: Any) -> bool:
    return value is not None and value != "" and value != [] and value != {}


def _entries_have(entries: Any, keys: Iterable[str]) -> bool:
    return (isinstance(entries, list) and bool(entries) and all(
        isinstance(e, Mapping) and all(_filled(e.get(k)) for k in keys) for e in entries))


def _dependency_ids(node_id: str, fields: Mapping[str, Any]) -> list[str] | None:
    deps = fields.get("dependencies")
    if not isinstance(deps, list):
        return None
    tree_file = fields.get("tree_file")
    out: list[str] = []
    for dep in deps:
        raw = dep.get("id") or dep.get("to") if isinstance(dep, Mapping) else dep
        if not isinstance(raw, str) or not raw:
            return None
        if ":" not in raw and tree_file:
            raw = f"tree:{tree_file}#{raw}"
        out.append(raw)
    return out


def node_fields(attrs: Mapping[str, Any]) -> dict[str, Any]:
    """Graph node attributes with the tree checklist fields lifted to the top."""
    fields = dict(attrs)
    checklist = attrs.get("checklist")
    if isinstance(checklist, Mapping):
        fields.update(checklist)
    return fields


def _dag_ok(node_id: str, lookup: Callable[[str], Mapping[str, Any] | None]) -> bool:
    """Dependencies explicit and resolvable from `node_id`, and no cycle among them."""
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done

    def visit(current: str) -> bool:
        attrs = lookup(current)
        if attrs is None:
            return False
        deps = _dependency_ids(current, node_fields(attrs))
        if deps is None:
            return False
        state[current] = 1
        for dep in sorted(deps):
            if state.get(dep) == 1 or (state.get(dep) is None and not visit(dep)):
                return False
        state[current] = 2
        return True

    return visit(node_id)


def checklist_failures(node_id: str, lookup: Callable[[str], Mapping[str, Any] | None]
                       ) -> list[str]:
    """The checks the node fails, in CHECKS order ([] = full access)."""
    attrs = lookup(node_id)
    if attrs is None:
        return [ANCHOR_UNAVAILABLE]
    f = node_fields(attrs)
    evidence = f.get("evidence")
    links = evidence if isinstance(evidence, list) else []
    types = {e.get("type") for e in links if isinstance(e, Mapping)}
    tolerance = f.get("tolerance")
    environment = f.get("environment")
    env_keys = [str(k).lower() for k in environment] if isinstance(environment, Mapping) else []
    passed = {
        "inputs": _entries_have(f.get("inputs"), ("name", "type", "unit", "source")),
        "outputs": _entries_have(f.get("outputs"), ("name", "type", "unit")),
        "evidence": all(t in types for t in REQUIRED_EVIDENCE_TYPES),
        "versioning": _entries_have(links, ("repo_rev", "content_hash")),
        "determinism": f.get("deterministic") is True and isinstance(tolerance, Mapping)
        and any(isinstance(tolerance.get(k), (int, float)) for k in ("abs", "rel")),
        "assumptions": _filled(f.get("assumptions")) and _filled(f.get("validity")),
        "environment": any("runtime" in k for k in env_keys)
        and any("lock" in k for k in env_keys),
        "dag_integrity": _dag_ok(node_id, lookup),
    }
    return [check for check in CHECKS if not passed[check]]


# ---------------------------------------------------------------- records

def anchor_of(record: RunRecord) -> str | None:
    """The node a record is about: the tree walk's first concept-tree anchor (the checklist is
    written for tree nodes), else its first anchor, else the top evidence item's node."""
    env = record.envelope
    trees = [a for a in env.tree_walk.anchors if a.startswith("tree:")]
    if trees:
        return trees[0]
    if env.tree_walk.anchors:
        return env.tree_walk.anchors[0]
    return env.evidence[0].node_id if env.evidence else None


def tree_version(anchor: str | None, lookup: Callable[[str], Mapping[str, Any] | None]
                 ) -> str | None:
    """The content hash of the tree file the anchor node comes from (None for code anchors)."""
    attrs = lookup(anchor) if anchor else None
    tree_file = attrs.get("tree_file") if attrs else None
    if not isinstance(tree_file, str):
        return None
    file_attrs = lookup(f"file:{tree_file}")
    value = file_attrs.get("content_hash") if file_attrs else None
    return value if isinstance(value, str) else None


def graph_pack(record: RunRecord, lookup: Callable[[str], Mapping[str, Any] | None],
               tree_of: Callable[[str], str | None] | None = None) -> dict[str, Any]:
    """The record's graph-pack metadata. `tree_of` names the concept tree a tree node belongs
    to (its root's own id, e.g. `casimir-tiles-tree`); without it, the walk's selection."""
    env = record.envelope
    walk = env.tree_walk
    concept = [e.node_id for e in env.evidence if e.node_id.startswith("tree:")]
    tree_ids: list[str] = list(env.items.selected_trees)
    primary = walk.primary_tree_id
    if tree_of is not None:
        named = [tree_of(n) for n in (*walk.anchors, *concept)]
        tree_ids = list(dict.fromkeys(t for t in named if t))
        anchored = [tree_of(a) for a in walk.anchors if a.startswith("tree:")]
        primary = next((t for t in anchored if t), tree_ids[0] if tree_ids else None)
    return {
        "treeIds": tree_ids, "primaryTreeId": primary,
        "anchorIds": list(walk.anchors), "pathIds": [n.node_id for n in walk.nodes],
        "conceptMatch": list(dict.fromkeys(concept)),
        "treeVersion": tree_version(anchor_of(record), lookup),
        "repo_rev": env.repo_rev, "lattice_rev": env.index_rev,
    }


def _evidence(record: RunRecord) -> list[dict[str, Any]]:
    env = record.envelope
    return [{"ref": f"E{rank}", "evidence_id": e.id, "path": e.path, "start_line": e.start_line,
             "end_line": e.end_line, "kind": e.kind, "content_hash": e.content_hash,
             "repo_rev": env.repo_rev, "node_id": e.node_id}
            for rank, e in enumerate(env.evidence, start=1)]


def _chat(record: RunRecord) -> dict[str, Any]:
    from helix.synthesis.prompt import build_prompt
    from helix.synthesis.redact import redact_envelope

    messages = list(record.prompt) if record.prompt else list(
        build_prompt(redact_envelope(record.envelope)[0]).messages)
    answer = record.answer if record.answer is not None else record.envelope.answer
    return {"messages": [*messages, {"role": "assistant", "content": answer}]}


def _verify_links(repo_root: str, links: list[Any]) -> list[str]:
    from helix.export_links import link_failures

    return link_failures(Path(repo_root), links)


def build_records(runs: Iterable[RunRecord], lookup: NodeLookup, settings: ExportSettings,
                  verify: LinkVerifier = _verify_links
                  ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Admitted records (in run order) and the admission counts. An anchor passes when every
    checklist item holds and every evidence link it declares verifies against the repository
    (`verify`: the file at its repo_rev, its content hash); failures are named."""
    out: list[dict[str, Any]] = []
    skipped: Counter[str] = Counter()
    by_check: Counter[str] = Counter()
    counts = Counter({"considered": 0, "admitted": 0, "diagnostic": 0, "rejected": 0})
    tree_id = getattr(lookup, "tree_id", None)
    for record in runs:
        mode = record.answer_mode or "none"
        if mode not in settings.answer_modes:
            skipped[f"answer_mode={mode}"] += 1
            continue
        anchor = anchor_of(record)
        if anchor is None:
            skipped["no_evidence"] += 1
            continue
        counts["considered"] += 1

        def node(node_id: str, root: str = record.repo_root) -> Mapping[str, Any] | None:
            return lookup(root, node_id)

        failed = checklist_failures(anchor, node)
        attrs = node(anchor)
        declared = node_fields(attrs).get("evidence") if attrs is not None else None
        broken = verify(record.repo_root, declared) if isinstance(declared, list) and \
            declared else []
        if broken:
            failed = [*failed, LINKS]
        if failed:
            by_check.update(failed)
            if not settings.include_diagnostic:
                counts["rejected"] += 1
                continue
            counts["diagnostic"] += 1
        else:
            counts["admitted"] += 1
        evidence = _evidence(record)
        row: dict[str, Any] = {
            "schema": RECORD_SCHEMA, "record_id": short_id(RECORD_SCHEMA, record.id),
            "run_id": record.id, "created": record.created, "question": record.question,
            "answer": record.answer, "answer_mode": record.answer_mode, "model": record.model,
            "fallback_reason": record.fallback_reason, "evidence": evidence,
            "evidence_hash": hash_obj([[e["path"], e["start_line"], e["end_line"],
                                        e["content_hash"]] for e in evidence]),
            "citations": [c.model_dump(mode="json") for c in record.envelope.citations],
            "anchor_node_id": anchor,
            "graph_pack": graph_pack(record, node, tree_of=(
                None if tree_id is None else
                lambda n, root=record.repo_root: tree_id(root, n))),  # type: ignore[misc]
            "admission": {"full_access": not failed, "diagnostic": bool(failed),
                          "failed_checks": failed, "link_failures": broken},
            "config_hash": record.config_hash, "variant_tags": dict(settings.variant_tags),
        }
        out.append(_chat(record) if settings.format == "chat" else row)
    return out, {**counts, "failed_checks": dict(sorted(by_check.items())),
                 "skipped": dict(sorted(skipped.items()))}


# ---------------------------------------------------------------- the index as a node lookup

class IndexNodes:
    """Node attributes from each repository's current index (never refreshed by export)."""

    def __init__(self) -> None:
        self._graphs: dict[str, Any] = {}

    def _graph(self, repo_root: str) -> Any:
        if repo_root not in self._graphs:
            self._graphs[repo_root] = self._load(repo_root)
        return self._graphs[repo_root]

    def __call__(self, repo_root: str, node_id: str) -> Mapping[str, Any] | None:
        graph = self._graph(repo_root)
        if graph is None or node_id not in graph:
            return None
        return dict(graph.nodes[node_id])

    def tree_id(self, repo_root: str, node_id: str) -> str | None:
        """The concept tree `node_id` belongs to: its tree file's root node's own id."""
        from indexers.trees import concept_tree_id

        graph = self._graph(repo_root)
        return None if graph is None else concept_tree_id(graph, node_id)

    @staticmethod
    def _load(repo_root: str) -> Any:
        from helix.core.config import load_config
        from helix.core.errors import HelixError
        from helix.core.paths import index_dir_for
        from indexers.reader import Index
        from indexers.store import IndexStore

        root = Path(repo_root)
        if not root.is_dir():
            return None
        try:
            config = load_config(root)
            index = Index.open(IndexStore(index_dir_for(root)), root, config.index)
            return index.graph
        except (HelixError, OSError, ValueError):
            return None


# ---------------------------------------------------------------- writing

def _lines(records: list[dict[str, Any]]) -> bytes:
    return "".join(canonical_json(r) + "\n" for r in records).encode("utf-8")


def _write_dir(final: Path, files: Mapping[str, bytes], *, replace: bool) -> None:
    """Write a directory of files, appearing all at once (rename of a finished temp dir)."""
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=final.parent))
    try:
        for name, data in files.items():
            (tmp / name).write_bytes(data)
        if final.exists():
            if not replace:
                raise BaselineExistsError(f"baseline '{final.name}' already exists at {final}; "
                                          "pin a new name (baselines are never overwritten)")
            old = final.with_name(f".{final.name}.old-{short_id(str(tmp))}")
            os.rename(final, old)
            os.rename(tmp, final)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def exports_dir(env: Mapping[str, str] | None = None) -> Path:
    return helix_home(env) / "exports"


def variant_key(settings: ExportSettings) -> str:
    return short_id("variant", settings.model_dump(mode="json"))


def export(out: Path, settings: ExportSettings, runs: Iterable[RunRecord], *,
           lookup: NodeLookup | None = None, pin_baseline: str | None = None,
           created: float = 0.0, unreadable: int = 0,
           verify: LinkVerifier | None = None) -> ExportReport:
    """Write `out` (JSON lines) and store the export as a baseline or a variant.

    `out` is refused before any work when it is a link or not a regular file (`write_out`).
    `unreadable` is how many run-log rows could not be read: counted, never fatal.
    """
    check_out_path(out)
    if pin_baseline is not None and not _NAME_RE.match(pin_baseline):
        raise ConfigError(f"bad baseline name '{pin_baseline}' (letters, digits, . _ -)")
    root = exports_dir()
    if pin_baseline is not None:
        stored_at, kind = root / "baselines" / pin_baseline, "baseline"
        if stored_at.exists():  # refuse before doing any work
            raise BaselineExistsError(f"baseline '{pin_baseline}' already exists at "
                                      f"{stored_at}; baselines are never overwritten")
    else:
        stored_at, kind = root / "variants" / variant_key(settings), "variant"
    records, counts = build_records(runs, lookup or IndexNodes(), settings,
                                    verify or _verify_links)
    if unreadable:
        counts["skipped"] = dict(sorted({**counts["skipped"], UNREADABLE: unreadable}.items()))
    data = _lines(records)
    report = ExportReport(**counts, out=str(out), stored_at=str(stored_at), kind=kind,  # type: ignore[arg-type]
                          records_hash=hash_obj(records))
    manifest = {"kind": kind, "name": pin_baseline, "settings": settings.model_dump(mode="json"),
                "report": report.model_dump(mode="json"), "created": created,
                "schema": RECORD_SCHEMA}
    _write_dir(stored_at, {RECORDS_FILE: data, MANIFEST_FILE: (canonical_json(manifest) + "\n")
                           .encode("utf-8")}, replace=kind == "variant")
    write_out(out, data)
    return report


# ---------------------------------------------------------------- incremental exports

LAST_FILE = "last.json"


def read_last(name: str = LAST_FILE) -> float | None:
    """When the newest run of the previous export was created (None: no export yet); `name`:
    the marker of one server's exports (its repositories' runs only), not `helix export`'s."""
    import json

    try:
        data = json.loads((exports_dir() / name).read_text(encoding="utf-8"))
        value = data.get("newest_run_created")
        return float(value) if isinstance(value, (int, float)) else None
    except (OSError, ValueError, AttributeError):
        return None


def write_last(newest: float, name: str = LAST_FILE) -> None:
    """Remember the newest run exported (never moving back), written whole."""
    previous = read_last(name)
    if previous is not None and previous >= newest:
        return
    root = exports_dir()
    root.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=root, prefix=".last.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(canonical_json({"newest_run_created": newest}) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, root / name)


def since_time(value: str, last: float | None) -> float:
    """`--since`: `last` (after the previous export's newest run; everything when there was
    none) or a UTC date / date and time."""
    from datetime import UTC, datetime

    if value.strip().lower() == "last":
        return last if last is not None else float("-inf")
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise ConfigError(f"bad --since '{value}' (last, or YYYY-MM-DD[THH:MM], UTC)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()
