"""`helix ask --model` against a loopback model vs the same ask without a model (issue 29).

The model is `benchmarks/model_stub.py` (an OpenAI chat-completions server on 127.0.0.1 that
answers in milliseconds), so what is left above the no-model ask is Helix's own cost of using
a model: importing litellm, its first call, the prompt and the contract. In one run, on one
repository (default: this one, the README's question), each a new `helix ask` process
(`HELIX_NO_SERVER=1`, embeddings off), for each way of importing litellm
("process": the model helper, `synthesis.model_helper`, started at the first moment of the
`helix` process (`helix.cli.early_helper`); "late": the same helper started where the ask
first knows its config (`helix.service.cli_llm`, as before the early start: the CLI run
through a wrapper, so its early start does not fire); "thread": litellm imported in a thread
of the ask started before it indexes, the other option issue 29 named, run through a wrapper
since Helix does not offer it; "off": imported at the call):

- cold index: an empty $HELIX_HOME (the first question builds the index);
- cold: the index built, no helper running (a new environment, so a new helper);
- warm: the same ask again (a "process" helper is running now);
- after_index ("process" only): a new environment, `helix index` (the index fresh: it checks
  and returns; it starts the helper) and then the ask, timed alone.

`import_cpu_s` is what bounds the cold ask: the CPU seconds of `import litellm` in a new
process, plain and as the helper imports it (`helix.synthesis.litellm_import`: the cyclic
garbage collector off during the import), median of `--rounds`.

Each condition is asked `--rounds` times (median reported; a new environment per cold round)
next to the same ask without a model. Target: at most 1.5 s above the no-model ask. The
envelope's `model_import` (what the ask waited for litellm) and `model_call` are recorded. An
ask still running after `--ask-timeout` seconds is stopped and counted in `hung`.
Writes benchmarks/results/ask_model_bench.json.

    python benchmarks/ask_model_bench.py [--repo PATH] [--rounds 3] [--modes process,off]
        [--out FILE]

(`--modes` leaves "thread" out: it hangs on the import lock until `--ask-timeout`.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _result import cpu_seconds, load_1m, show, write_result
from model_stub import ModelStub

ROOT = Path(__file__).resolve().parent.parent
RESULT = ROOT / "benchmarks" / "results" / "ask_model_bench.json"
QUESTION = "where is the BM25 index built?"
TARGET_OVER_S = 1.5
MODES = ("process", "late", "thread", "off")
HELPER_MODES = ("process", "late")


_THREAD = """
import sys, threading
from helix.synthesis.llm import warm_litellm
threading.Thread(target=warm_litellm, daemon=True).start()
from helix.cli.main import main
main(sys.argv[1:])
"""
_LATE = """
import sys
from helix.cli.main import main
main(sys.argv[1:])
"""
_IMPORTS = {"plain": "import litellm",
            "helper": "from helix.synthesis.litellm_import import import_litellm; "
                      "import_litellm()"}
ASK_TIMEOUT_S = 300.0
LIMITS = {"ask_timeout_s": ASK_TIMEOUT_S}
HUNG: dict[str, int] = {}


def _env(home: Path, mode: str, round_tag: str, extra: dict[str, str] | None
         ) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HELIX_")}
    env.update(HELIX_HOME=str(home), HELIX_NO_SERVER="1", HELIX_INDEX__EMBED_ENABLED="false",
               HELIX_SYNTHESIS__MODEL_HELPER="process" if mode in HELPER_MODES else "off",
               HELIX_SYNTHESIS__HELPER_IDLE_S="120", OPENAI_API_KEY="sk-bench-stub",
               HELIX_BENCH_ROUND=round_tag, PYTHONPATH=str(ROOT))
    return {**env, **(extra or {})}


def _ask(repo: Path, home: Path, model: str | None, base: str, mode: str,
         round_tag: str, extra: dict[str, str] | None = None) -> tuple[float, dict[str, Any]]:
    env = _env(home, mode, round_tag, extra)
    wrapper = {"thread": _THREAD, "late": _LATE}.get(mode) if model else None
    start = ["-c", wrapper] if wrapper else ["-m", "helix.cli.main"]
    argv = [sys.executable, *start, "ask", "--json", "--repo", str(repo)]
    if model:
        argv += ["--model", model, "--api-base", base]
    started = time.perf_counter()
    try:
        done = subprocess.run([*argv, QUESTION], env=env, capture_output=True, text=True,
                              check=False, timeout=LIMITS["ask_timeout_s"])
    except subprocess.TimeoutExpired:
        HUNG[mode] = HUNG.get(mode, 0) + 1
        return LIMITS["ask_timeout_s"], {"timings_ms": {}}
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"helix ask failed ({done.returncode}): {done.stderr.strip()}")
    envelope = json.loads(done.stdout)
    if (model or extra) and envelope.get("answer_mode") != "llm":
        raise SystemExit(f"no model answer: {envelope['fallback_reason']}")
    return round(seconds, 3), envelope


def _timings(envelope: dict[str, Any]) -> dict[str, float]:
    keep = ("index", "controller", "synthesis", "model_import", "model_wait", "model_call",
            "total")
    return {k: round(envelope["timings_ms"].get(k, 0.0) / 1000, 3) for k in keep}


def _ask_after_index(repo: Path, home: Path, model: str, base: str, round_tag: str
                     ) -> tuple[float, dict[str, Any]]:
    """`helix index` with a model configured (HELIX_MODEL: it starts the helper), then the
    ask in the same environment (its model from there too), timed alone."""
    configured = {"HELIX_MODEL": model, "HELIX_API_BASE": base}
    subprocess.run([sys.executable, "-m", "helix.cli.main", "index", "--repo", str(repo)],
                   env=_env(home, "process", round_tag, configured), capture_output=True,
                   check=True, timeout=LIMITS["ask_timeout_s"])
    return _ask(repo, home, None, base, "process", round_tag, configured)


def import_cpu(rounds: int) -> dict[str, float]:
    """Median CPU seconds (user + system) of litellm's import in a new process, each way."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_MODE": "PRODUCTION",
           "PYTHONPATH": str(ROOT)}
    out: dict[str, float] = {}
    for name, code in _IMPORTS.items():
        seconds = []
        for _ in range(rounds):
            before = cpu_seconds(children=True)
            subprocess.run([sys.executable, "-c", code], env=env, check=True,
                           capture_output=True)
            seconds.append(cpu_seconds(children=True) - before)
        out[name] = round(statistics.median(seconds), 3)
    return out


def _stop_helpers(home: Path) -> None:
    from helix.synthesis.model_helper import ModelHelper

    for sock in (home / "run").glob("model-*.sock"):
        helper = ModelHelper(home, idle_s=1, start_s=1)
        helper.path = sock
        helper.stop()


def run(repo: Path, rounds: int, modes: tuple[str, ...] = MODES) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="ask_model_bench-"))
    model = "openai/stub"
    out: dict[str, Any] = {"repo": str(repo), "question": QUESTION, "rounds": rounds,
                           "target_over_s": TARGET_OVER_S, "load_avg_start": load_1m(None)}
    with ModelStub() as stub:
        base = stub.base
        cold_index = {"no_model": _ask(repo, work / "cold-none", None, base, "off", "c")[0]}
        for mode in modes:
            seconds, envelope = _ask(repo, work / f"cold-{mode}", model, base, mode, "c")
            cold_index[mode] = seconds
            cold_index[f"{mode}_timings"] = _timings(envelope)  # type: ignore[assignment]
        out["cold_index_s"] = cold_index
        home = work / "home"
        _ask(repo, home, None, base, "off", "warm-up")  # the index, built once for the rest
        rows: dict[str, dict[str, list[float]]] = {m: {"cold": [], "warm": []} for m in modes}
        rows["no_model"] = {"cold": [], "warm": []}
        timing_rows: dict[str, list[dict[str, float]]] = {}
        for n in range(rounds):
            rows["no_model"]["cold"].append(_ask(repo, home, None, base, "off", f"n{n}")[0])
            for mode in modes:
                for condition in ("cold", "warm"):  # warm: the same environment again
                    seconds, envelope = _ask(repo, home, model, base, mode, f"{mode}{n}")
                    rows[mode][condition].append(seconds)
                    timing_rows.setdefault(f"{mode}_{condition}", []).append(
                        _timings(envelope))
                if mode == "process":
                    seconds, envelope = _ask_after_index(repo, home, model, base,
                                                         f"{mode}{n}-index")
                    rows[mode].setdefault("after_index", []).append(seconds)
                    timing_rows.setdefault(f"{mode}_after_index", []).append(
                        _timings(envelope))
            rows["no_model"]["warm"].append(_ask(repo, home, None, base, "off", f"n{n}")[0])
        _stop_helpers(home)
        for mode in modes:
            _stop_helpers(work / f"cold-{mode}")
        out["requests_to_model"] = len(stub.requests)
    medians = {name: {c: round(statistics.median(v), 3) for c, v in conds.items()}
               for name, conds in rows.items()}
    base_s = medians["no_model"]
    out["median_s"] = medians
    out["over_no_model_s"] = {
        mode: {c: round(medians[mode][c] - base_s["cold" if c == "after_index" else c], 3)
               for c in medians[mode]}
        for mode in modes}
    out["over_no_model_s"]["cold_index"] = {
        mode: round(cold_index[mode] - cold_index["no_model"], 3) for mode in modes}
    out["within_target"] = {
        mode: {c: out["over_no_model_s"][mode][c] <= TARGET_OVER_S for c in ("cold", "warm")}
        for mode in modes}
    out["timings_s"] = {key: {k: round(statistics.median(r[k] for r in rs), 3) for k in rs[0]}
                        for key, rs in timing_rows.items()}
    out["runs_s"] = rows
    out["hung"] = dict(sorted(HUNG.items()))
    out["ask_timeout_s"] = LIMITS["ask_timeout_s"]
    out["import_cpu_s"] = import_cpu(rounds)
    out["load_avg_end"] = load_1m(None)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=ROOT)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ask-timeout", type=float, default=ASK_TIMEOUT_S)
    parser.add_argument("--out", type=Path, default=RESULT)
    parser.add_argument("--modes", default=",".join(MODES),
                        help="comma-separated, of: " + ", ".join(MODES))
    args = parser.parse_args()
    modes = tuple(m for m in args.modes.split(",") if m)
    if not modes or set(modes) - set(MODES):
        parser.error(f"--modes takes {', '.join(MODES)}")
    LIMITS["ask_timeout_s"] = args.ask_timeout
    result = run(args.repo.resolve(), args.rounds, modes)
    result["command"] = ("python benchmarks/ask_model_bench.py --rounds "
                         f"{args.rounds} --modes {','.join(modes)} --out {args.out}")
    write_result(args.out, result)
    show({k: result[k] for k in ("median_s", "over_no_model_s", "within_target")})


if __name__ == "__main__":
    main()
