"""How right `helix stale-docs` is on real repositories (issue 34): precision of its alarms,
judged by hand on a sample, and recall on documentation fixes mined from history.

    python benchmarks/stale_docs_eval.py findings --repos DIR... --work W [--home H] --out F.json
    python benchmarks/stale_docs_eval.py sample F.json --n 50 --seed 34 --out S.json
    python benchmarks/stale_docs_eval.py show S.json ID --repos-root DIR
    python benchmarks/stale_docs_eval.py mine --repo DIR [--limit N] [--renames] --out C.json
    python benchmarks/stale_docs_eval.py recall CASES.json --repos-root DIR --work W --out R.json
    python benchmarks/stale_docs_eval.py score --judgments J.json --recall R.json --out RESULT
    python benchmarks/stale_docs_eval.py replay J.json --repos-root DIR --out J2.json

`findings` runs `helix stale-docs --json` on each work tree (a clone of a fetched snapshot,
under /work/tmp, never committed) in a fresh HELIX_HOME: its alarms are the sections found
stale (with evidence, rules v6), not those listed as only `changed`. `sample` picks the
alarms to judge: the same share from each repository, by a seeded hash of their keys. `show`
prints one alarm for a person to judge: the section as it is, and each definition then (at
the section's last commit) and now, as a diff. The judgments are a JSON list (committed:
paths, commits, names and a verdict only) of {"id", "repo", "head", "doc", "start_line",
"symbols", "commits", "verdict": "right" | "wrong", "why"}: an alarm is right when the
section's text says something about the changed definition that the change made untrue or
incomplete (a parameter, a default, an error, a removed name, behaviour it describes), wrong
otherwise.

`mine` lists candidate documentation fixes: a commit that changes documentation only, whose
changed lines name a definition of the code, which a commit changed (a line naming it)
between the document's previous edit and the fix. A person keeps those whose doc edit
describes that code change (the cases file: {"repo", "fix", "doc", "symbol", "code_commit",
"change"}). A candidate's code commit comes after the last edit of the document before the
fix. `mine --renames` starts from the other end: a code commit whose subject says it renames
or removes and whose diff drops a public definition, then the first documentation-only commit
naming it. `recall` checks out each fix's parent and asks whether `helix stale-docs` flags a
section of that document holding a line the fix changed (found stale; one listed only as
`changed` is not flagged: `changed_only` says so).
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from _result import write_result

CHECKOUT = Path(__file__).resolve().parents[1]
GIT = ["git", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false",
       "-c", "diff.external=", "--no-pager"]
WINDOW_LINES = 60  # the index's default window (index.window_lines)
DOC = re.compile(r"\.(md|rst|txt)$")
CODE = re.compile(r"\.(py|go|js|ts|rs|java|rb)$")
NAMED = re.compile(r"`([A-Za-z_][A-Za-z0-9_.]*)(?:\(\))?`|\b([A-Za-z_][A-Za-z0-9_]*)\(\)")


def git(repo: Path, *args: str) -> str:
    return subprocess.run([*GIT, "-C", str(repo), *args], capture_output=True, text=True,
                          errors="replace").stdout


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "HELIX_HOME": str(home), "HELIX_INDEX__EMBED_ENABLED": "false",
            "PYTHONPATH": str(CHECKOUT), "HELIX_NO_SERVER": "1"}


def stale_docs(repo: Path, home: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "helix.cli.main", "stale-docs", "--repo",
                           str(repo), "--json"], capture_output=True, text=True, env=_env(home))
    if done.returncode not in (0, 1):
        raise SystemExit(f"stale-docs failed on {repo}: {done.stderr[-500:]}")
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def findings(args: argparse.Namespace) -> None:
    out = []
    for repo in args.repos:
        report = stale_docs(repo.resolve(), args.home or args.work / "home" / repo.name)
        head = git(repo, "rev-parse", "HEAD").strip()
        sections = report["stale"] + (report.get("changed", []) if args.changed else [])
        for section in sections:
            out.append({"repo": repo.name, "head": head, "key": section["key"],
                        "severity": section.get("severity", "stale"),
                        "doc": section["doc_path"], "start_line": section["start_line"],
                        "end_line": section["end_line"], "heading": section["heading"],
                        "touched": section["touched"]["sha"] if section["touched"] else None,
                        "definitions": [{"symbol": d["symbol"], "path": d["path"],
                                         "kinds": sorted({c["kind"] for c in d["changes"]}),
                                         "changes": [c["detail"] for c in d["changes"]],
                                         "commits": [c["sha"] for c in d["commits"]],
                                         "evidence": [{k: e[k] for k in ("kind", "name",
                                                                         "line")}
                                                      for e in d.get("evidence", [])]}
                                        for d in section["definitions"]]})
        print(f"{repo.name}: {len(report['stale'])} stale ({len(report.get('changed', []))} "
              f"changed only) of {report['aligned']} aligned sections "
              f"({report['timings_ms']['total'] / 1000:.1f} s)", file=sys.stderr)
    _write(args.out, out)


def _rank(seed: int, key: str) -> str:
    return hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()


def sample(args: argparse.Namespace) -> None:
    found = json.loads(args.findings.read_text())
    by_repo: dict[str, list[dict[str, Any]]] = {}
    for item in found:
        by_repo.setdefault(item["repo"], []).append(item)
    for items in by_repo.values():
        items.sort(key=lambda f: _rank(args.seed, f["key"]))
    chosen: list[dict[str, Any]] = []
    while len(chosen) < args.n and any(by_repo.values()):  # one from each, in turn
        for name in sorted(by_repo):
            if by_repo[name] and len(chosen) < args.n:
                chosen.append(by_repo[name].pop(0))
    for number, item in enumerate(chosen, start=1):
        item["id"] = number
    _write(args.out, chosen)


def _def_text(repo: Path, rev: str, path: str, symbol: str) -> list[str]:
    from indexers.def_shapes import shapes
    from indexers.languages import classify

    text = git(repo, "show", f"{rev}:{path}")
    lang = classify(path)[1]
    found = shapes(lang, text.encode()) if lang else {}
    shape = found.get(symbol)
    if shape is None:
        return []
    return text.split("\n")[shape.start_line - 1:shape.end_line]


def show(args: argparse.Namespace) -> None:
    item = next(i for i in json.loads(args.sample.read_text()) if i["id"] == args.id)
    repo = args.repos_root / item["repo"]
    doc = git(repo, "show", f"HEAD:{item['doc']}").split("\n")
    print(f"== {item['repo']} {item['doc']}:{item['start_line']}-{item['end_line']} "
          f"{' > '.join(item['heading'])} (touched {item['touched'][:12]})")
    print("\n".join(doc[item["start_line"] - 1:item["end_line"]][:args.lines]))
    for d in item["definitions"]:
        # blind: what the alarm says changed (its kinds) is not shown, only the code
        print(f"-- {d['symbol']} {d['path']} "
              + ("" if args.blind else f"{d['kinds']} ")
              + f"commits {[c[:12] for c in d['commits']]}")
        if "removed" in d["kinds"]:
            print(git(repo, "show", "--stat", "--format=%h %s", d["commits"][0])[:1500])
            if args.blind:
                print("\n".join(_def_text(repo, f"{d['commits'][0]}^", d["path"],
                                           d["symbol"])[:args.lines]))
            continue
        then = _def_text(repo, item["touched"], d["path"], d["symbol"])
        now = _def_text(repo, "HEAD", d["path"], d["symbol"])
        diff = list(difflib.unified_diff(then, now, "then", "now", lineterm="", n=2))
        print("\n".join(diff[:args.lines]))


def _names(lines: list[str]) -> set[str]:
    out = set()
    for line in lines:
        for match in NAMED.finditer(line):
            name = (match.group(1) or match.group(2)).rsplit(".", 1)[-1]
            if len(name) > 3 and ("_" in name or name != name.lower()):
                out.add(name)
    return out


def mine(args: argparse.Namespace) -> None:
    repo = args.repo
    commits = git(repo, "log", "--no-merges", "--format=%H", f"-n{args.limit}").split()
    out = []
    for sha in commits:
        files = git(repo, "show", "--format=", "--name-only", sha).split()
        if not files or not all(DOC.search(f) for f in files):
            continue  # documentation-only commits
        for doc in files:
            patch = git(repo, "show", "--format=", "-U0", "--no-ext-diff", "--no-textconv", sha,
                        "--", doc).splitlines()
            changed = [line[1:] for line in patch
                       if line[:1] in "+-" and not line.startswith(("+++", "---"))]
            for name in sorted(_names(changed)):
                hits = git(repo, "grep", "-l", "-E", rf"(def|class|func|function) {name}\b",
                           sha).split()
                code = [h.split(":", 1)[1] for h in hits if CODE.search(h)]
                if not code:
                    continue
                # code changes naming it since the document was last edited before the fix
                last = git(repo, "log", "-n1", "--format=%H", f"{sha}^", "--", doc).strip()
                since = [f"{last}..{sha}^"] if last else [f"{sha}^"]
                earlier = git(repo, "log", "--no-merges", "--format=%H", f"-n{args.window}",
                              f"-G\\b{name}\\b", *since, "--", *code).split()
                if earlier:
                    out.append({"repo": repo.name, "fix": sha, "doc": doc, "symbol": name,
                                "code": code, "code_commits": earlier[:3],
                                "subject": git(repo, "log", "-1", "--format=%s", sha).strip()})
    _write(args.out, out)
    print(f"{len(out)} candidates", file=sys.stderr)


RENAMING = re.compile(r"renam|remov|deprecat|drop|replace", re.I)
DEFINED = r"^%s\s*(?:async )?(?:def|class) ([A-Za-z_]\w*)"


def mine_renames(args: argparse.Namespace) -> None:
    """The other way round: a code commit whose subject says it renames or removes and whose
    diff drops a public definition, then the first documentation-only commit after it whose
    diff names that definition."""
    repo = args.repo
    out = []
    for line in git(repo, "log", "--no-merges", "--format=%H %s", f"-n{args.limit}", "--",
                    "*.py").splitlines():
        sha, subject = line.split(" ", 1)
        if not RENAMING.search(subject):
            continue
        patch = git(repo, "show", "--format=", "-U0", "--no-ext-diff", "--no-textconv", sha,
                    "--", "*.py")
        gone = set(re.findall(DEFINED % "-", patch, re.M)) - set(
            re.findall(DEFINED % "\\+", patch, re.M))
        gone = {g for g in gone if not g.startswith("_") and len(g) > 3}
        if not gone:
            continue
        names = "|".join(sorted(gone))
        for later in git(repo, "log", "--no-merges", "--format=%H", "--reverse", f"{sha}..HEAD",
                         f"-G\\b({names})\\b", "--", "*.md", "*.rst").split()[:3]:
            files = git(repo, "show", "--format=", "--name-only", later).split()
            if files and all(DOC.search(f) for f in files):
                out.append({"repo": repo.name, "fix": later, "docs": files, "gone": sorted(gone),
                            "code_commits": [sha],
                            "subject": git(repo, "log", "-1", "--format=%s", later).strip()})
                break
    _write(args.out, out)
    print(f"{len(out)} candidates", file=sys.stderr)


def recall(args: argparse.Namespace) -> None:
    cases = json.loads(args.cases.read_text())
    cases = cases["cases"] if isinstance(cases, dict) else cases
    out = []
    reports: dict[tuple[str, str], dict[str, Any]] = {}  # one run per fix's parent
    for number, case in enumerate(cases, start=1):
        source = args.repos_root / case["repo"]
        if (case["repo"], case["fix"]) not in reports:
            tree = args.work / (f"{case['repo']}-{case['fix'][:12]}" if args.keep
                                else f"case-{number}")
            if not (args.keep and (tree / ".git").is_dir()):
                shutil.rmtree(tree, ignore_errors=True)
                subprocess.run([*GIT, "clone", "-q", "--shared", "--no-checkout", str(source),
                                str(tree)], check=True)
                subprocess.run([*GIT, "-C", str(tree), "checkout", "-q", f"{case['fix']}^"],
                               check=True)
            reports[case["repo"], case["fix"]] = stale_docs(tree, args.work / "home")
            if not args.keep:
                shutil.rmtree(tree, ignore_errors=True)
        report = reports[case["repo"], case["fix"]]
        edited = _edited_lines(source, case["fix"], case["doc"])
        hits, demoted = (_holding(report.get(part, []), case["doc"], edited)
                         for part in ("stale", "changed"))
        out.append({**case, "flagged": bool(hits), "changed_only": bool(demoted and not hits),
                    "symbols": sorted({d["symbol"] for s in hits for d in s["definitions"]}),
                    "evidence": sorted({e["kind"] for s in hits for d in s["definitions"]
                                        for e in d.get("evidence", [])})})
        print(f"{number}. {case['repo']} {case['fix'][:12]} {case['doc']}: "
              f"{'flagged' if hits else 'missed'}", file=sys.stderr)
        _write(args.out, out)  # case by case: a run stopped keeps what it found
    _write(args.out, out)


def _holding(sections: list[dict[str, Any]], doc: str, lines: list[int]
             ) -> list[dict[str, Any]]:
    """The sections of `doc` holding one of `lines`."""
    return [s for s in sections if s["doc_path"] == doc
            and any(s["start_line"] <= line <= s["end_line"] for line in lines)]


def _edited_lines(repo: Path, fix: str, doc: str) -> list[int]:
    """The lines of `doc` (as its parent had it) that the fix changed, or next to which it
    added some."""
    patch = git(repo, "show", "--format=", "-U0", "--no-ext-diff", "--no-textconv", fix,
                "--", doc)
    lines: list[int] = []
    for start, count in re.findall(r"^@@ -(\d+)(?:,(\d+))? \+", patch, re.M):
        first, many = int(start), int(count) if count != "" else 1
        lines += list(range(first, first + many)) if many else [max(first, 1)]
    return lines


def _listed(path: Path | None, key: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A data file's rows (a bare list, or the list under `key` beside its description)."""
    if path is None:
        return [], {}
    data = json.loads(path.read_text())
    if isinstance(data, list):
        return data, {}
    return data[key], {k: v for k, v in data.items() if k != key}


def _precision(path: Path) -> dict[str, Any]:
    judged, about = _listed(path, "judgments")
    right = [j for j in judged if j["verdict"] == "right"]
    by_repo: dict[str, list[int]] = {}
    by_kind: dict[str, list[int]] = {}
    for j in judged:
        hit = int(j["verdict"] == "right")
        by_repo.setdefault(j["repo"], []).append(hit)
        for kind in j.get("kinds", ()):
            by_kind.setdefault(kind, []).append(hit)
    return {**about, "file": path.name, "judged": len(judged), "right": len(right),
            "precision": round(len(right) / len(judged), 3) if judged else None,
            "repos": len(by_repo),
            "by_repo": {k: {"judged": len(v), "right": sum(v)}
                        for k, v in sorted(by_repo.items())},
            "by_change_kind": {k: {"judged": len(v), "right": sum(v)}
                               for k, v in sorted(by_kind.items())}}


def score(args: argparse.Namespace) -> None:
    """Precision of the last judgments file (earlier rounds kept beside it), and recall."""
    rounds = [_precision(path) for path in args.judgments]
    recalled, recall_about = _listed(args.recall, "cases")
    flagged = sum(c["flagged"] for c in recalled)
    same = sum(c.get("same_change", False) for c in recalled)
    result = {
        "precision": rounds[-1],
        "precision_earlier_rounds": rounds[:-1],
        "recall": {**recall_about, "cases": len(recalled), "flagged": flagged,
                   "recall": round(flagged / len(recalled), 3) if recalled else None,
                   "flagged_for_the_very_change": same,
                   "recall_very_change": round(same / len(recalled), 3) if recalled else None,
                   "cases_list": [{k: c.get(k) for k in ("repo", "fix", "doc", "symbol",
                                                         "flagged", "same_change")}
                                  for c in recalled]},
    }
    _write(args.out, result)
    print(json.dumps({k: {kk: vv for kk, vv in v.items() if not isinstance(vv, (dict, list))
                          and kk not in ("about", "judged_by")}
                      for k, v in result.items() if isinstance(v, dict)}))


def replay(args: argparse.Namespace) -> None:
    """Which judged alarms the document rules of the checkout would drop, replayed on each
    repository at the judged head without a run: a skipped or archived file (its directory,
    an older version's directory), a release history by its headings, a version heading
    above the section. The relevance and alignment rules are not replayed (a run is)."""
    from helix.core.history_settings import StaleDocsSettings
    from helix.staledocs.archives import archived, older_versions, release_history, version_heading
    from helix.staledocs.sections import skipped
    from indexers.chunkers import doc_sections, split_lines
    from indexers.languages import classify

    settings = StaleDocsSettings()
    judged, about = _listed(args.judgments, "judgments")
    out = []
    for j in judged:
        repo = args.repos_root / j["repo"]
        docs = [p for p in git(repo, "ls-tree", "-r", "--name-only", j["head"]).split("\n")
                if classify(p)[0] == "doc"]
        lines = split_lines(git(repo, "show", f"{j['head']}:{j['doc']}"))
        sections = doc_sections(j["doc"], classify(j["doc"])[1], lines, WINDOW_LINES)
        here = [h for start, end, h in sections if start <= j["start_line"] <= end]
        why = ("skipped by name" if skipped(j["doc"], settings.skip) else
               "archived directory" if archived(j["doc"], settings.history_dirs,
                                                older_versions(docs)) else
               "release history by its headings" if release_history(
                   (h for _, _, h in sections), settings.min_version_headings) else
               "under a version heading" if any(version_heading(t) for h in here for t in h)
               else None)
        out.append({**j, "dropped_by": why})
    kept = [j for j in out if j["dropped_by"] is None]
    _write(args.out, {**about, "replayed_from": args.judgments.name, "judgments": kept,
                      "dropped": [{k: j[k] for k in ("id", "repo", "doc", "verdict",
                                                     "dropped_by")} for j in out
                                  if j["dropped_by"]]})
    print(f"{len(out)} judged, {len(out) - len(kept)} dropped by the document rules; right "
          f"{sum(j['verdict'] == 'right' for j in kept)} of {len(kept)} kept", file=sys.stderr)


def _write(path: Path, data: Any) -> None:
    """Atomically, in the layout of the committed data files (data/evals/stale_docs/): indent 2,
    non-ASCII escaped as json.dumps does."""
    write_result(path, data, ensure_ascii=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("findings")
    p.add_argument("--repos", type=Path, nargs="+", required=True)
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--home", type=Path, default=None,
                   help="one HELIX_HOME for every repository (indexes built before)")
    p.add_argument("--changed", action="store_true",
                   help="also the sections only changed (severity 'changed': no evidence)")
    p.add_argument("--out", type=Path, required=True)
    p = sub.add_parser("sample")
    p.add_argument("findings", type=Path)
    p.add_argument("--n", type=int, default=50)
    p.add_argument("--seed", type=int, default=34)
    p.add_argument("--out", type=Path, required=True)
    p = sub.add_parser("show")
    p.add_argument("sample", type=Path)
    p.add_argument("id", type=int)
    p.add_argument("--repos-root", type=Path, required=True)
    p.add_argument("--lines", type=int, default=40, help="lines of the section and each diff")
    p.add_argument("--blind", action="store_true",
                   help="the code only: not the kinds of change the alarm names")
    p = sub.add_parser("mine")
    p.add_argument("--repo", type=Path, required=True)
    p.add_argument("--limit", type=int, default=3000)
    p.add_argument("--window", type=int, default=200)
    p.add_argument("--renames", action="store_true",
                   help="start from code commits that rename or remove a definition")
    p.add_argument("--out", type=Path, required=True)
    p = sub.add_parser("recall")
    p.add_argument("cases", type=Path)
    p.add_argument("--repos-root", type=Path, required=True)
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--keep", action="store_true",
                   help="keep each fix's parent tree (and its index) under --work and reuse "
                        "it in a later run: only stale-docs runs again")
    p.add_argument("--out", type=Path, required=True)
    p = sub.add_parser("replay")
    p.add_argument("judgments", type=Path)
    p.add_argument("--repos-root", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p = sub.add_parser("score")
    p.add_argument("--judgments", type=Path, nargs="+", required=True,
                   help="judgments files, earliest round first")
    p.add_argument("--recall", type=Path, default=None)
    p.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.command == "mine" and args.renames:
        mine_renames(args)
        return 0
    {"findings": findings, "sample": sample, "show": show, "mine": mine, "recall": recall,
     "score": score, "replay": replay}[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
