"""Human tables for `helix eval history` (the JSON is `run.result_json`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evals.history.mine import Mined
from evals.history.rules import MAX_QUESTION_CHARS
from evals.history.score import KS

SYSTEMS = (("helix", "Helix"), ("bm25", "BM25 files"))
HEADER = ("", "cases", *(f"Acc@{k}" for k in KS), "MRR", "p50 s", "p95 s")


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if value < 10 else f"{value:.1f}"
    return str(value)


def table(rows: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """One line per system: cases, Acc@k, MRR, p50/p95 seconds."""
    cells = [list(HEADER)]
    for label, summary in rows:
        cells.append([label, _fmt(summary.get("cases")),
                      *(_fmt(summary.get(f"acc@{k}")) for k in KS), _fmt(summary.get("mrr")),
                      _fmt(summary.get("p50_s")), _fmt(summary.get("p95_s"))])
    widths = [max(len(row[i]) for row in cells) for i in range(len(HEADER))]
    return ["  " + "  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i])
                             for i, cell in enumerate(row)).rstrip() for row in cells]


def _dropped(dropped: Mapping[str, int]) -> str:
    ordered = sorted(dropped.items(), key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(f"{reason} {count}" for reason, count in ordered) or "none"


def repo_lines(run: Mapping[str, Any], *, verbose: bool = False) -> list[str]:
    cases = run["cases"]
    cut = sum(1 for c in cases if c["truncated"])
    held = " (held out)" if run["spec"].get("held_out") else ""
    lines = [f"{run['name']}{held} at {run['rev'][:12]}: {run['commits']} commits, "
             f"{run['kept']} kept, {len(cases)} cases run"
             + (f", {sum(run['skipped'].values())} skipped ("
                + ", ".join(f"{k} {v}" for k, v in sorted(run["skipped"].items())) + ")"
                if run["skipped"] else "")
             + (f", {cut} questions cut to {MAX_QUESTION_CHARS} chars" if cut else "")]
    lines += table([(label, run[key]) for key, label in SYSTEMS])
    index = run["index"]
    lines.append(f"  index refresh: first {index['first_s']:.1f} s, p50 {index['p50_s']:.2f} s, "
                 f"total {index['total_s']:.1f} s; wall {run['seconds']:.1f} s")
    lines.append(f"  dropped: {_dropped(run['dropped'])}")
    for case in cases:
        helix, bm25 = case["helix"], case["bm25"]
        missed = helix["all_rank"] is None or helix["all_rank"] > max(KS)
        if not (verbose or missed):
            continue
        top = helix["top"][0] if helix["top"] else "(no evidence)"
        lines.append(f"  {'MISS' if missed else 'ok  '} {case['commit'][:12]} "
                     f"helix={_fmt(helix['all_rank'])} bm25={_fmt(bm25['all_rank'])} "
                     f"gold={','.join(case['gold'])} helix#1={top} "
                     f"| {case['question_head'][:70]}"
                     + (f" [error: {helix['error']}]" if helix.get("error") else ""))
    return lines


def render(payload: Mapping[str, Any], *, verbose: bool = False) -> str:
    lines: list[str] = []
    for run in payload["repos"]:
        lines += repo_lines(run, verbose=verbose)
        lines.append("")
    if len(payload["repos"]) > 1:
        for group, data in payload["overall"].items():
            lines.append(f"overall ({group}: {', '.join(data['repos'])})")
            lines += table([(label, data[key]) for key, label in SYSTEMS])
            lines.append("")
    embed = "without embeddings" if payload["settings"]["no_embed"] else "with embeddings"
    lines.append(f"Acc@k: all gold files in the top k distinct files; MRR: 1/rank of the first "
                 f"gold file; Helix {embed}, zero LLM calls.")
    return "\n".join(lines)


def cases_json(mined: Mined) -> dict[str, Any]:
    """`--cases`: what was mined and sampled, without running anything."""
    return {"repo": mined.repo, "rev": mined.rev, "commits": mined.commits,
            "kept": mined.kept, "dropped": mined.dropped,
            "cases": [c.model_dump(mode="json") for c in mined.cases]}


def cases_text(mined: Mined) -> str:
    lines = [f"{mined.repo} at {mined.rev[:12]}: {mined.commits} commits, {mined.kept} kept, "
             f"{len(mined.cases)} sampled", f"  dropped: {_dropped(mined.dropped)}"]
    for case in mined.cases:
        head = case.question.splitlines()[0] if case.question else ""
        lines.append(f"  {case.commit[:12]} gold={','.join(case.gold)} | {head[:80]}")
    return "\n".join(lines)
