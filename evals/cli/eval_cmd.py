"""`helix eval`: run eval suites in dry-run mode; A/B gates against a pinned baseline."""

from __future__ import annotations

import json
from pathlib import Path

import click

from evals.cli.history_cmd import WithHistory
from evals.cli.run_common import cluster_option, on_cluster
from helix.outfile import check_out_path, write_out


@click.command(name="eval", cls=WithHistory,
               short_help="Run eval suites (dry runs): hit@k, MRR, A/B gates.")
@click.argument("suites", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the JSON result to FILE.")
@click.option("--no-embed", is_flag=True, help="Index and ask without embeddings (fast).")
@click.option("--baseline", "baseline", metavar="NAME",
              help="Compare with the pinned baseline NAME and print promote or rollback.")
@click.option("--candidate-config", "candidate", metavar="FILE",
              help="A configuration (TOML overrides file, or a name in evals/configs/).")
@click.option("--pin-baseline", "pin", metavar="NAME",
              help="Store this run as baseline NAME (never overwrites an existing one).")
@click.option("--list", "list_only", is_flag=True, help="List suites, configurations, baselines.")
@click.option("--no-bm25-files", is_flag=True, help="Skip the BM25-over-files baseline.")
@click.option("--answerer", metavar="MODEL",
              help="Also answer every question with MODEL (fake/echo runs offline) and report "
                   "and gate answer-level metrics: fallback rate, contract violations, valid "
                   "citations.")
@click.option("--html", "html_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write a self-contained HTML report with charts to FILE.")
@click.option("--compare", nargs=2, type=click.Path(dir_okay=False, path_type=Path),
              metavar="A.json B.json",
              help="Compare two saved results (--out files) instead of running; with --html.")
@cluster_option
@click.option("-v", "--verbose", is_flag=True, help="Show passing cases too.")
def command(suites: tuple[str, ...], as_json: bool, out: Path | None, no_embed: bool,
            baseline: str | None, candidate: str | None, pin: str | None, list_only: bool,
            no_bm25_files: bool, answerer: str | None, html_out: Path | None,
            compare: tuple[Path, Path] | None, cluster: str | None, verbose: bool) -> None:
    """Run eval SUITES (names in data/evals/, e.g. matrix networkx helix_self
    continuity/<name>; default: all but *_bench) as controller dry runs and report
    hit@1/3/5/10, MRR, stop reasons, llm_steps == 0, hash stability and time per question.
    `helix eval history [--repo PATH] ...` mines cases from git history instead (see
    `helix eval history --help`)."""
    from evals import gates, report
    from evals.runner import Runner
    from evals.suites import default_suites, list_suites, load_suite

    if list_only:
        listing = {"suites": list_suites(),
                   "configs": sorted(p.stem for p in gates.CONFIGS_DIR.glob("*.toml")),
                   "baselines": gates.list_baselines()}
        if as_json:
            click.echo(json.dumps(listing, indent=2))
        else:
            from helix.cli.safe_text import echo

            for name, values in listing.items():
                echo(f"{name}: {', '.join(values) if values else '(none)'}")
        return
    if compare:
        _compare(compare, html_out)
        return
    for target in (out, html_out):
        if target is not None:  # a link or a device is refused before the (long) run
            check_out_path(target, "--out" if target is out else "--html")
    names = list(suites) or default_suites()
    loaded = [load_suite(name) for name in names]
    label: str = "default"
    overrides: dict[str, object] = {}
    if candidate is not None:
        label, overrides = gates.load_named_config(candidate)
    pinned_run = gates.load_baseline(baseline) if baseline is not None else None
    if pin is not None:
        gates.ensure_new_baseline(pin)  # fail before the run: a pinned name is never reused
    if answerer is not None:
        label = f"{label} answered by {answerer}"
    fan = fan_out = None
    if cluster is not None:
        from evals.cluster import FanOut, suite_fan_out

        fan = FanOut(cluster)
        fan_out = suite_fan_out(fan, overrides, no_embed, answerer)
    run = Runner(overrides, no_embed=no_embed, label=label, bm25_files=not no_bm25_files,
                 answerer=answerer, fan_out=fan_out).run(loaded)
    decision = None
    if pinned_run is not None:
        decision = gates.evaluate_gates(pinned_run, run).model_copy(
            update={"baseline_label": f"{baseline} ({pinned_run.label})"})
    pinned = str(gates.pin_baseline(pin, run)) if pin is not None else None
    payload = on_cluster(report.result_json(run, decision, pinned), fan)
    if out is not None:
        write_out(out, (json.dumps(payload, indent=2, sort_keys=True) + "\n").encode("utf-8"))
    if html_out is not None:
        from evals.cli.run_common import write_html

        write_html(html_out, payload, "helix eval: " + ", ".join(names))
    if as_json:
        from helix.cli.common import echo_json

        echo_json(payload)
    else:
        report.render(run, decision, verbose=verbose, pinned=pinned)


def _compare(paths: tuple[Path, Path], html_out: Path | None) -> None:
    """`--compare A.json B.json --html OUT`: two saved results of one kind, side by side."""
    from evals.html_report import compare
    from helix.core.errors import UserError
    from helix.core.paths import user_path
    from helix.outfile import write_out

    if html_out is None:
        raise UserError("--compare needs --html FILE (the comparison is a page of charts)")
    check_out_path(html_out, "--html")
    loaded = []
    for path in paths:
        try:
            loaded.append(json.loads(user_path(str(path)).read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            raise UserError(f"cannot read {path} as a helix eval result: {exc}") from None
    try:
        page = compare(loaded[0], loaded[1], (paths[0].stem, paths[1].stem))
    except (ValueError, KeyError, TypeError) as exc:
        raise UserError(f"cannot compare {paths[0]} and {paths[1]}: {exc}") from None
    write_out(html_out, page.encode("utf-8"))
