"""The secret detector on snippets written by someone who never saw its rules (held apart).

    python benchmarks/secret_heldapart.py --secrets FILE --lookalikes FILE [--out FILE]
        [--note TEXT]

Each file is JSON lines `{"id", "path", "text", "secrets": [...], "service", "context"}`,
written by hand by a helper that read no scanner's rules (gitleaks, TruffleHog, detect-secrets,
Helix's): realistic snippets in many file kinds with one or more invented credentials each
(`--secrets`), and snippets with none that a careless detector might flag (`--lookalikes`).
Scored as `benchmarks/secret_recall.py` scores the public samples: a secret is caught when
every character of every occurrence lies inside a span `find_secrets` returns; a lookalike is
flagged when anything at all is found. Recall is per secret and per snippet (every secret of
the snippet caught), by service and by file context.

Writes benchmarks/results/secret_heldapart.json: counts, recall, the ids, services and contexts
of the misses and of the flagged lookalikes, never their text (the set stays held apart). A set
rotated to tuning keeps its last held-apart result under its own name (round 14: writer40's
became secret_tune_writer40.json; round 15: writer44's secret_heldapart_w44.json became
secret_tune_writer44.json; round 16: writer49's secret_heldapart_w49.json became
secret_tune_writer49.json; round 17: writer51's secret_heldapart_w51.json became
secret_tune_writer51.json; round 18: writer54's secret_heldapart_w54.json became
secret_tune_writer54.json; round 20: writer64's secret_heldapart_w64.json became
secret_tune_writer64.json); the default file is the lead's next held-apart measurement.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from _result import load_average, show, write_result
from secret_recall import covered

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "secret_heldapart.json"


def _records(path: Path) -> list[dict[str, Any]]:
    """The file's records (`evals.suites.read_jsonl`: one JSON object a line); a record without
    `text` and `secrets` stops the run with its file and line."""
    from evals.suites import read_jsonl

    records = []
    for number, record in read_jsonl(path):
        if not isinstance(record.get("text"), str) or not isinstance(record.get("secrets"), list):
            raise SystemExit(f"{path}:{number}: a record needs 'text' and 'secrets'")
        records.append(record)
    return records


def _share(hit: int, total: int) -> float | None:
    return round(hit / total, 4) if total else None


def score(secrets: list[dict[str, Any]], lookalikes: list[dict[str, Any]]) -> dict[str, Any]:
    from evals.reserved import shown_name
    from helix.core.secrets import find_secrets

    values = values_caught = snippets_caught = 0
    by_service: dict[str, Counter[str]] = {}
    by_context: dict[str, Counter[str]] = {}
    misses = []
    for record in secrets:
        spans = [(s, e) for s, e, _ in find_secrets(record["text"])]
        caught = [covered(record["text"], value, spans) for value in record["secrets"]]
        values += len(caught)
        values_caught += sum(caught)
        whole = all(caught)
        snippets_caught += whole
        for key, table in ((str(record.get("service", "")), by_service),
                           (str(record.get("context", "")), by_context)):
            table.setdefault(key, Counter())["snippets"] += 1
            table[key]["caught"] += whole
        if not whole:
            misses.append({"id": record.get("id"), "service": shown_name(record.get("service")),
                           "context": record.get("context"),
                           "missed": len(caught) - sum(caught), "of": len(caught)})
    flagged = []
    for record in lookalikes:
        kinds = sorted({kind for _, _, kind in find_secrets(record["text"])})
        if kinds:
            flagged.append({"id": record.get("id"), "service": shown_name(record.get("service")),
                            "context": record.get("context"), "kinds": kinds})
    return {
        "secret_snippets": len(secrets), "secret_values": values,
        "recall_values": _share(values_caught, values),
        "recall_snippets": _share(snippets_caught, len(secrets)),
        "services": len(by_service),
        "services_all_caught": sum(1 for c in by_service.values()
                                   if c["caught"] == c["snippets"]),
        "by_context": {k: {"snippets": c["snippets"], "caught": c["caught"]}
                       for k, c in sorted(by_context.items())},
        "lookalikes": len(lookalikes), "lookalikes_flagged": len(flagged),
        "false_positive_rate": _share(len(flagged), len(lookalikes)),
        "misses": misses, "flagged": flagged,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--secrets", required=True, type=Path)
    parser.add_argument("--lookalikes", required=True, type=Path)
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--note", default="", help="what was run and why, kept in the result")
    args = parser.parse_args(argv)
    load = load_average()
    from helix.core.errors import HelixError

    try:
        secrets, lookalikes = _records(args.secrets), _records(args.lookalikes)
    except HelixError as exc:  # unreadable, not UTF-8, not JSON, not an object: one line
        raise SystemExit(str(exc)) from None
    result = {"benchmark": "secret_heldapart", "note": args.note, "load": load,
              "secrets_file": args.secrets.name, "lookalikes_file": args.lookalikes.name,
              **score(secrets, lookalikes)}
    write_result(args.out, result)
    show({k: v for k, v in result.items() if k not in ("misses", "flagged", "by_context")})
    return 0


if __name__ == "__main__":
    sys.exit(main())
