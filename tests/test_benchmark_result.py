"""benchmarks/_result.py: the one tail of the benchmark scripts (machine, load, CPU seconds, an
atomic canonical-JSON result file), and the scripts that use it still import."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import _result  # noqa: E402

# The scripts whose tail is `_result` (module name: the indent of the result files it writes).
CONVERTED = {"ask_model_bench": 2, "baseline_bm25_files": 2, "controller_bench": 2,
             "parse_bench": 2, "synthesis_bench": 2, "tree_bench": 2,
             "cluster_index_bench": 2, "corpus_cluster_bench": 1, "corpus_baseline": 1,
             "paraphrase_router": 1, "qa_dev": 1, "encoder_tolerance": 2,
             "drift_bench": 2, "first_answer_bench": 1, "index_bench": 2, "embed_bench": 2,
             "large_repo_bench": 1, "redaction_scan": 2,
             "scan_cost_bench": 1, "search_bench": 2, "secret_recall": 2, "serve_bench": 2,
             "state_bench": 2, "router_stages": 1, "router_misses": 1,
             "ranker_parts": 1, "ranker_retrain": 1, "stale_docs_eval": 2,
             "stale_docs_speed": 2, "history_bench": 2, "history_body_dense": 2,
             "history_index_bench": 1, "corpus_rank": 1,
             "qa_misses": 1, "ranker_combine": 1, "ranker_file_signals": 1,
             "absence_head_latency": 1, "qa_gate": 1, "qa_ranker": 1,
             "router_routes": 1, "exemplar_vectors_bench": 1, "router_lowo_audit": 1,
             "router_cost": 1, "secret_heldapart": 2, "qa_validation": 1,
             "ranker_orders": 1, "ranker_stages_ab": 1, "qa_cost": 1,
             "router_head_variants": 1}
# The converted scripts whose files escape non-ASCII as json.dumps does by default
# (`ensure_ascii=True`), and the committed files each wrote that need it to keep their bytes.
ENSURE_ASCII = {"stale_docs_eval": ("data/evals/stale_docs/judgments_v2.json",
                                    "data/evals/stale_docs/judgments_v6.json",
                                    "data/evals/stale_docs/judgments_v7_tune.json")}
# What a script writing its own tail calls; a converted script leaves it to `_result`.
OWN_TAIL = ("os.getloadavg(", "platform.platform(", "platform.python_version(", "sort_keys=True",
            ".replace(args.out)", "os.replace(")


def test_result_text_is_canonical_sorted_and_stable() -> None:
    one = {"b": 1, "a": {"d": [1, 2.5], "c": "é"}, "e": (3, None), "f": True}
    two = {"f": True, "e": [3, None], "a": {"c": "é", "d": [1, 2.5]}, "b": 1}
    text = _result.result_text(one)
    assert text == ('{\n  "a": {\n    "c": "é",\n    "d": [\n      1,\n      2.5\n    ]\n  },\n'
                    '  "b": 1,\n  "e": [\n    3,\n    null\n  ],\n  "f": true\n}\n')
    assert _result.result_text(two) == text
    assert json.loads(text) == json.loads(json.dumps(one))
    assert _result.result_text(one, indent=1).startswith('{\n "a": {\n  "c"')


def test_ensure_ascii_escapes_as_json_dumps_does() -> None:
    """Past "~" (DEL, accents, a dash, a character past the first plane, a lone surrogate):
    the bytes json.dumps writes by default; without the flag the text keeps them as they are."""
    text = "caf\u00e9 \u2014 \x7f \U0001f600 \ud800 \t \"q\" \\ ~"
    result = {text: [text, {"\u00dcber": 1.5}], "a": None}
    expected = json.dumps(result, indent=2, sort_keys=True) + "\n"
    assert _result.result_text(result, ensure_ascii=True) == expected
    assert expected.isascii() and "\\ud83d\\ude00" in expected and "\\u007f" in expected
    plain = _result.result_text({"k": "caf\u00e9 \U0001f600"})
    assert plain == '{\n  "k": "caf\u00e9 \U0001f600"\n}\n'


@pytest.mark.parametrize("path", sorted(p for paths in ENSURE_ASCII.values() for p in paths))
def test_ascii_data_files_keep_their_bytes(path: str) -> None:
    """The files a script wrote with json.dumps' escapes re-serialise byte for byte with
    `ensure_ascii` (and would not without it: they hold non-ASCII text)."""
    text = (ROOT / path).read_text(encoding="utf-8")
    assert _result.result_text(json.loads(text), ensure_ascii=True) == text
    assert _result.result_text(json.loads(text)) != text


def test_result_text_refuses_what_is_not_json() -> None:
    with pytest.raises(ValueError):
        _result.result_text({"x": math.nan})
    with pytest.raises(TypeError):
        _result.result_text({"x": object()})


@pytest.mark.parametrize("name", sorted(CONVERTED))
def test_result_files_keep_their_bytes(name: str) -> None:
    """A converted script's results, written again through `_result`, are byte for byte the
    files its own tail wrote: the same keys, values and layout (docs/benchmarks.md is made of
    them). Its results: `<name>.json`, or the files naming it as their benchmark (a held-apart
    result renamed when its set rotated to tuning)."""
    paths = _results_of(name)
    assert paths, f"no result of {name}"
    for path in paths:
        text = path.read_text(encoding="utf-8")
        assert _result.result_text(json.loads(text), CONVERTED[name],
                                   ensure_ascii=name in ENSURE_ASCII) == text, path.name


def _results_of(name: str) -> list[Path]:
    own = BENCHMARKS / "results" / f"{name}.json"
    if own.exists():
        return [own]
    return [path for path in sorted((BENCHMARKS / "results").glob("*.json"))
            if f'"benchmark": "{name}"' in path.read_text(encoding="utf-8")]


def test_write_result_replaces_the_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "results" / "bench.json"
    _result.write_result(target, {"z": 1, "a": [1, 2]})
    assert target.read_text(encoding="utf-8") == _result.result_text({"a": [1, 2], "z": 1})
    _result.write_result(target, {"a": 2}, indent=1)
    assert target.read_bytes() == b'{\n "a": 2\n}\n'
    assert [p.name for p in target.parent.iterdir()] == ["bench.json"]


def test_write_result_failing_mid_write_keeps_the_old_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "bench.json"
    _result.write_result(target, {"run": "old"})
    old = target.read_bytes()

    def broken_fsync(fd: int) -> None:
        raise OSError("disk went away mid-write")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="mid-write"):
        _result.write_result(target, {"run": "new", "rows": list(range(1000))})
    monkeypatch.undo()
    with pytest.raises(ValueError):  # not JSON: refused before the file is touched
        _result.write_result(target, {"run": "nan", "x": math.nan})
    assert target.read_bytes() == old
    assert [p.name for p in tmp_path.iterdir()] == ["bench.json"]


def test_importing_it_binds_no_helix() -> None:
    """A script measuring another tree's Helix (redaction_scan.py --src) puts that tree on
    sys.path after its imports: `_result` must not have bound the installed `helix` by then."""
    code = ("import sys\nsys.path.insert(0, sys.argv[1])\nimport _result\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'helix'))")
    done = subprocess.run([sys.executable, "-c", code, str(BENCHMARKS)], capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_machine_load_and_cpu_seconds() -> None:
    assert set(_result.machine()) == {"cpus", "python", "platform"}
    assert set(_result.machine(with_platform=False)) == {"cpus", "python"}
    loads = _result.load_average()
    assert len(loads) == 3 and all(x == round(x, 2) >= 0 for x in loads)
    assert _result.load_1m(None) >= 0
    before = _result.cpu_seconds()
    deadline = time.perf_counter() + 0.05
    while time.perf_counter() < deadline:
        sum(range(1000))
    assert _result.cpu_seconds() > before
    kids = _result.cpu_seconds(children=True)
    subprocess.run([sys.executable, "-c", "sum(range(3_000_000))"], check=True)
    assert _result.cpu_seconds(children=True) > kids


def test_converted_scripts_import_and_write_no_tail_of_their_own() -> None:
    """Every converted script still imports (one interpreter for all: a broken import of
    `_result` or a name it no longer has fails here) and no longer writes its own tail."""
    code = ("import importlib, sys\nsys.path.insert(0, sys.argv[1])\n"
            "for name in sys.argv[2:]:\n"
            "    module = importlib.import_module(name)\n"
            "    assert callable(module.main), name\n"
            "print('imported', len(sys.argv) - 2)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code, str(BENCHMARKS), *sorted(CONVERTED)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == f"imported {len(CONVERTED)}"
    for name in CONVERTED:
        text = (BENCHMARKS / f"{name}.py").read_text(encoding="utf-8")
        assert "from _result import" in text, name
        assert [t for t in OWN_TAIL if t in text] == [], name
        assert name not in ENSURE_ASCII or "ensure_ascii=True" in text, name
