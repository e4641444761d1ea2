"""`helix export`: training records from the run log, with the admission report."""

from __future__ import annotations

from pathlib import Path

import click

from helix.cli.common import echo_json
from helix.cli.safe_text import echo
from helix.core.errors import ConfigError


def _tags(values: tuple[str, ...]) -> dict[str, str]:
    tags: dict[str, str] = {}
    for value in values:
        key, sep, val = value.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"bad --variant-tag '{value}' (expected KEY=VALUE)")
        tags[key.strip()] = val.strip()
    return dict(sorted(tags.items()))


@click.command("export")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The JSON-lines file to write.")
@click.option("--format", "fmt", type=click.Choice(["records", "chat"]), default="records",
              show_default=True, help="Plain records, or chat messages ready for fine-tuning.")
@click.option("--include-diagnostic", is_flag=True,
              help="Also admit records whose anchor node fails the checklist (marked diagnostic).")
@click.option("--answer-mode", "answer_modes", multiple=True,
              type=click.Choice(["llm", "fallback", "deterministic", "dry_run", "clarify",
                                 "continuity"]),
              help="Answer modes to export (repeatable; default: llm).")
@click.option("--pin-baseline", "pin_baseline", metavar="NAME",
              help="Store this export as baseline NAME (refused if NAME exists).")
@click.option("--variant-tag", "variant_tags", multiple=True, metavar="K=V",
              help="Tag the export with a training setting (repeatable).")
@click.option("--since", "since", metavar="last|YYYY-MM-DD[THH:MM]",
              help="Only runs after this: `last` = after the newest run of the previous "
                   "export (scheduled exports stay incremental), or a UTC date/time.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def export(out: Path, fmt: str, include_diagnostic: bool, answer_modes: tuple[str, ...],
           pin_baseline: str | None, variant_tags: tuple[str, ...], since: str | None,
           as_json: bool) -> None:
    """Export finished runs as training records (JSON lines) and report admission.

    A record is admitted when its anchor node passes the DAG full-access checklist, or, with
    --include-diagnostic, marked diagnostic. Exports are also stored under
    $HELIX_HOME/exports/ (baselines/NAME or variants/<settings-hash>).
    """
    from helix.export import DEFAULT_ANSWER_MODES, ExportSettings
    from helix.export import export as run_export
    from helix.runlog import RunLog

    settings = ExportSettings(format=fmt,  # type: ignore[arg-type]
                              include_diagnostic=include_diagnostic,
                              answer_modes=tuple(sorted(set(answer_modes)))
                              or DEFAULT_ANSWER_MODES,
                              variant_tags=_tags(variant_tags))
    from helix.export import read_last, since_time, write_last

    after = since_time(since, read_last()) if since is not None else None
    run_log = RunLog()
    # a row that cannot be read back is skipped and counted
    runs = [r for r in run_log.records() if after is None or r.created > after]
    from helix.core.ports import SystemClock

    report = run_export(out, settings, runs, pin_baseline=pin_baseline,
                        unreadable=len(run_log.unreadable), created=SystemClock().now())
    if runs:
        write_last(max(r.created for r in runs))
    run_log.notice_unreadable()
    if as_json:
        echo_json(report)
        return
    echo(f"wrote {report.admitted + report.diagnostic} records to {report.out} "
         f"({report.kind} stored at {report.stored_at})")
    echo(f"considered {report.considered}: admitted {report.admitted} (full access), "
         f"diagnostic {report.diagnostic}, rejected {report.rejected}")
    for check, count in report.failed_checks.items():
        echo(f"  failed {check}: {count}")
    for reason, count in report.skipped.items():
        echo(f"  skipped {reason}: {count}")
