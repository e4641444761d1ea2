"""Natural questions as ranker training cases: a question and the lines its answer cites.

A question file holds SWE-QA-format lines (`{"question", "answer", "kind"}`: the answer names
definitions in backticks and lines as `path:a-b`), written about one repository at one commit.
Each becomes a `CorpusCase` whose message is the question and whose targets are definitions of
that commit's tree, derived from the answer the way `helix eval qa` derives gold
(`evals.qa.gold.derive_gold`):

- a cited line range (`path:a-b`, `lines a-b in path`, a fenced block's ```START:END:path``` info
  string, tests and docs as any other file) -> the definitions overlapping it, the
  innermost ones: a definition enclosing another overlapping one is a target only when the
  range holds its first line (citing a method does not make its class a target; citing a
  whole function makes its nested helpers targets too, as `span@5` would count them);
- a backticked name defined in a cited file -> that definition (`symbol@5`'s gold);
- an answer naming no file: a name exactly one file defines (the qa eval's `defined_name`).

The case's files are the gold files. A question with no target definition is skipped and
counted. The rows are then collected exactly as a commit case's (`evals.corpus.features`: the
same candidates, features and labels), so a question is a training group like a commit.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.corpus.mine import CorpusCase, Target
from evals.qa.gold import Gold, GoldSpan, derive_gold
from evals.reserved import names_reserved
from evals.suites import read_jsonl
from helix.core.errors import ConfigError
from helix.core.schemas import SymbolDef


@dataclass(frozen=True)
class Question:
    question: str
    answer: str
    kind: str
    category: str = ""  # the SWE-QA template category it was made from, when given


def read_questions(path: Path) -> list[Question]:
    """A question file's lines (ConfigError in one line for a malformed one)."""
    out: list[Question] = []
    for number, data in read_jsonl(path):
        question, answer = data.get("question"), data.get("answer")
        if not isinstance(question, str) or not isinstance(answer, str) or not question.strip():
            raise ConfigError(f"{path.name}:{number}: not a {{\"question\", \"answer\"}} line")
        out.append(Question(question, answer, str(data.get("kind") or ""),
                            str(data.get("category") or "")))
    return out


def _overlaps(d: SymbolDef, span: GoldSpan) -> bool:
    return d.path == span.path and d.start_line <= span.end_line and span.start_line <= d.end_line


def _encloses(outer: SymbolDef, inner: SymbolDef) -> bool:
    return (outer is not inner and outer.path == inner.path
            and outer.start_line <= inner.start_line and inner.end_line <= outer.end_line
            and (outer.start_line, outer.end_line) != (inner.start_line, inner.end_line))


def cited_definitions(span: GoldSpan, defs: Sequence[SymbolDef]) -> list[SymbolDef]:
    """The definitions a cited line range points at: those overlapping it, less any that
    encloses another overlapping one while the range does not hold its first line."""
    hit = [d for d in defs if _overlaps(d, span)]
    return [d for d in hit if span.start_line <= d.start_line <= span.end_line
            or not any(_encloses(d, other) for other in hit)]


def question_targets(gold: Gold, defs_of: Callable[[str], Sequence[SymbolDef]],
                     find: Callable[[str], Sequence[SymbolDef]]) -> list[Target]:
    """The target definitions of a question's gold (`defs_of(path)`: a file's definitions;
    `find(name)`: a name's definitions), each once, in (path, start, qualname) order."""
    found: dict[tuple[str, str, int, int], SymbolDef] = {}
    for span in gold.spans:
        if span.source == "line_range":
            chosen = cited_definitions(span, defs_of(span.path))
        else:  # a named definition: the one whose lines gold took
            chosen = [d for d in find(span.symbol or "") if d.path == span.path
                      and (d.start_line, d.end_line) == (span.start_line, span.end_line)]
        for d in chosen:
            found[(d.path, d.qualname, d.start_line, d.end_line)] = d
    return [Target(path=d.path, qualname=d.qualname, kind=str(d.kind), start=d.start_line,
                   end=d.end_line) for _, d in sorted(found.items(), key=lambda kv: (
                       kv[0][0], kv[0][2], kv[0][1], kv[0][3]))]


@dataclass(frozen=True)
class Converted:
    cases: list[CorpusCase]
    skipped: dict[str, int]  # why a question is not a case: no gold file, no definition


def convert(questions: Sequence[Question], project: str, split: str, revision: str,
            files: Sequence[str], defs_of: Callable[[str], Sequence[SymbolDef]],
            find: Callable[[str], Sequence[SymbolDef]], language: str = "python") -> Converted:
    """`questions` about `project` at `revision` (its indexed `files`) as corpus cases."""
    cases: list[CorpusCase] = []
    skipped = {"no_gold_file": 0, "no_definition": 0}
    for number, q in enumerate(questions, 1):
        gold = derive_gold(q.answer, files, find)
        if not gold.files:
            skipped["no_gold_file"] += 1
            continue
        targets = question_targets(gold, defs_of, find)
        if not targets:
            skipped["no_definition"] += 1
            continue
        text = q.question.lower()
        cases.append(CorpusCase(
            id=f"qa:{project}:{number}", repo=project, language=language, split=split,
            revision=revision, commit=revision, parent=revision, committed=0,
            message=q.question, truncated=False, targets=tuple(targets),
            files=tuple(gold.files),
            names_target=any(t.qualname.rsplit(".", 1)[-1].lower() in text for t in targets),
            exact=True))
    return Converted(cases, skipped)


def index_definitions(index: Any) -> Callable[[str], Sequence[SymbolDef]]:
    """A file's definitions from an index (its symbol table, by path)."""
    by_path: dict[str, list[SymbolDef]] = {}
    for d in index.definitions():
        by_path.setdefault(d.path, []).append(d)
    return lambda path: by_path.get(path, ())


def collect_questions(jsonl: Path, project: str, repo: Path, revision: str, out: Path,
                      split: str, home: Path | None = None,
                      overrides: dict[str, Any] | None = None
                      ) -> dict[str, Any]:
    """One question file's rows: the tree of `revision` written from `repo` (a clone or bare
    snapshot) under `home` (None: $HELIX_HOME) as `helix eval qa` writes it (its history the
    commit's, nothing after it), indexed, each question converted and asked with a recorder in
    the model's place. Writes `out`/<project>.npz, .json (`evals.corpus.features.save`) and
    .cases.jsonl (the converted cases, which the trainer reads the targets from); returns a
    summary."""
    from controller.rank_bridge import QUESTION_FEATURES
    from evals.corpus.features import collect_repo, learned, save
    from evals.corpus.history_git import drop_head
    from evals.corpus.policy import index_tree
    from evals.history.mine import git_dir
    from evals.history.trees import TreeWriter
    from evals.qa.run import tree_for

    overrides = dict(overrides or {})
    questions = read_questions(jsonl)
    root, sha = tree_for(repo, revision, home)
    try:
        index, _config, _ = index_tree(root, learned(overrides))
        converted = convert(questions, project, split, sha,
                            [r.path for r in index.files()], index_definitions(index),
                            index.find_definitions)
        rows, _ = collect_repo(root, converted.cases, overrides, wide=True)
    finally:
        drop_head(root)
        TreeWriter(git_dir(repo), root).remove()
    save(rows, out / project, {"repo": project, "split": split, "source": "questions",
                               "revision": sha}, QUESTION_FEATURES)
    lines = "".join(c.model_dump_json() + "\n" for c in converted.cases)
    tmp = out / f".{project}.cases.jsonl.tmp"
    tmp.write_text(lines, encoding="utf-8")
    tmp.replace(out / f"{project}.cases.jsonl")
    return {"questions": len(questions), "cases": len(converted.cases),
            "skipped": converted.skipped, "revision": sha,
            "targets_in_pool": sum(c.targets_in_pool > 0 for c in rows)}


@dataclass(frozen=True)
class QuestionFile:
    """One project's question file in a question list (`data/evals/qa_train/manifest.json`)."""

    name: str
    source: str  # github:OWNER/NAME
    revision: str  # the commit the answers cite
    file: str  # beside the manifest
    digest: str
    writer: str
    questions: int
    split: str
    # how the questions are worded: "named" (they name what they ask about, like commit
    # messages), "hidden" (SWE-QA's style: names hidden behind role descriptions) or
    # "process" (made by SWE-QA's own process: its question templates by category, tests
    # included, roles in the words of names and users, answers citing several places) or
    # "report" (a few sentences of what the user saw, ending in one short question that
    # refers back to them: "... Where does that happen?")
    style: str = "named"


STYLES = ("named", "hidden", "process", "report")


def load_question_list(manifest: Path) -> list[QuestionFile]:
    """The question files a manifest lists, each checked against its digest (ConfigError in
    one line: a missing or changed file)."""
    from helix.core.hashing import digest

    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
        entries = [QuestionFile(name=name, split=str(data["split"]), **entry)
                   for name, entry in sorted(data["projects"].items())]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"{manifest} is not a question list: {exc}") from None
    for entry in entries:
        if entry.style not in STYLES:
            raise ConfigError(f"{manifest}: {entry.name}'s style {entry.style!r} is not one of "
                              f"{', '.join(STYLES)}")
        path = manifest.parent / entry.file
        if "/" in entry.file or not path.is_file() or digest(path.read_bytes()) != entry.digest:
            raise ConfigError(f"{path} is missing or does not match {manifest}'s digest")
    return entries


def add_question_file(manifest: Path, name: str, source: str, revision: str, jsonl: Path,
                      writer: str, split: str = "train", style: str = "named") -> QuestionFile:
    """Copy `jsonl` beside `manifest` as <name>.jsonl and list it (a new manifest is made; the
    project's earlier entry is replaced). Both written whole or not at all."""
    from helix.core.hashing import digest

    raw = jsonl.read_bytes()
    questions = read_questions(jsonl)
    reserved = [str(n) for n, q in enumerate(questions, 1) if names_reserved(q.question, q.answer)]
    if reserved:
        raise ConfigError(f"{jsonl.name}: line(s) {', '.join(reserved)} name a project reserved "
                          "for checks run elsewhere (data/reserved_projects.txt): remove them")
    entry = QuestionFile(name=name, source=source, revision=revision, file=f"{name}.jsonl",
                         digest=digest(raw), writer=writer,
                         questions=len(questions), split=split, style=style)
    data: dict[str, Any] = (json.loads(manifest.read_text(encoding="utf-8"))
                            if manifest.is_file() else {"split": split, "projects": {}})
    if data.get("split") != split:
        raise ConfigError(f"{manifest} lists the {data.get('split')} split, not {split}")
    if style not in STYLES:
        raise ConfigError(f"style {style!r} is not one of {', '.join(STYLES)}")
    data["projects"][name] = {k: v for k, v in entry.__dict__.items()
                              if k not in ("name", "split") and (k != "style" or v != "named")}
    manifest.parent.mkdir(parents=True, exist_ok=True)
    for path, body in ((manifest.parent / entry.file, raw), (manifest, (json.dumps(
            data, indent=1, sort_keys=True) + "\n").encode("utf-8"))):
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_bytes(body)
        tmp.replace(path)
    return entry
