"""Embedding benchmark: the build-time encoders on the same texts, in one run.

Texts: the real embed cards of the installed networkx source, selected and formatted the way
`indexers.dense.select_for_embedding` does for a build, then a fixed sample (the first N by
text digest). Each encoder runs in its own fresh process (so its startup is measured cold:
import + model load, and no encoder's threads disturb another's), over every batch size and
intra-op thread count asked for; rounds alternate the encoders and keep each configuration's
best texts/s (the machine is shared: the best run is the least disturbed one). CPU seconds are
recorded too: on a busy machine they move less than wall time.

Encoders:
- `st`: sentence-transformers, today's build path (`SentenceTransformerEmbedder`, which sorts
  by length; batch size from the settings), torch threads 1 and 2;
- `numpy`: the numpy query encoder (its fixed batch of 32), BLAS threads 1 and 2;
- `onnx-fp32` / `onnx-int8`: `indexers.onnx_encoder.OnnxEncoder` (the export is timed apart:
  it happens once per user), batch sizes x threads;
- `*-unsorted`: the same with batches cut in input order (each batch embedded by its own call),
  which is what sorting by length saves.
Cosine of every configuration's vectors against the sentence-transformers reference (min and
mean); ratios against today's path (`st`, settings batch size, 2 threads) from the same run.
`--cold-index` also times `helix index` of a fresh networkx copy, cold (fresh $HELIX_HOME, so
an empty embedding cache), in a new process, once with sentence-transformers forced and once
with the default embedder; then `helix ask --dry-run` in a new process on that index, with
queries embedded by the numpy encoder (the default) and by the ONNX session.

    python benchmarks/embed_bench.py [--texts N] [--rounds R] [--cold-index]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from _result import load_average, write_result

RESULT = Path(__file__).parent / "results" / "embed_bench.json"
BATCH_SIZES = (1, 16, 32, 64, 128)
PARALLEL_WORKERS = 2  # batch 1: texts spread over this many threads, 1 intra-op each
THREADS = (1, 2)
UNSORTED_BATCH = 32
WARMUP_TEXTS = 16
COSINE_BAR = 0.99

WORKER = r"""
import json, sys, time
t0 = time.perf_counter(); c0 = time.process_time()
spec = json.loads(sys.argv[1])
import numpy as np
texts = json.loads(open(spec["texts"], encoding="utf-8").read())
kind = spec["kind"]
from helix.core.config import IndexSettings
settings = IndexSettings()
if kind == "st":
    import torch
    from indexers.encoder import SentenceTransformerEmbedder
    enc = SentenceTransformerEmbedder.from_settings(settings)
    enc._load()
elif kind == "numpy":
    from indexers.encoder import NumpyMiniLMEncoder, default_model_path
    enc = NumpyMiniLMEncoder(default_model_path(settings))
else:
    from indexers.onnx_encoder import OnnxEncoder
    from indexers.encoder import default_model_path
    sessions = {}
    def onnx(threads):
        if threads not in sessions:
            sessions[threads] = OnnxEncoder(default_model_path(settings), kind, threads=threads)
        return sessions[threads]
    onnx(spec["configs"][0]["threads"])
out = {"startup_s": time.perf_counter() - t0, "startup_cpu_s": time.process_time() - c0,
       "configs": []}

def runner(cfg):
    threads, batch = cfg["threads"], cfg["batch"]
    if kind == "st":
        torch.set_num_threads(threads)
        enc._batch_size = batch
        return enc.embed
    if kind == "numpy":
        from threadpoolctl import threadpool_limits
        def run(items):
            with threadpool_limits(limits=threads, user_api="blas"):
                return enc._embed(items)
        return run
    session = onnx(threads)
    session._batch = batch
    session._workers = cfg["workers"]
    return session.embed

for cfg in spec["configs"]:
    embed = runner(cfg)
    embed(texts[:WARMUP])  # warm-up: first-call allocations are not throughput
    t = time.perf_counter(); c = time.process_time()
    if cfg["sorted"]:
        vectors = embed(texts)
    else:
        step = cfg["batch"]
        vectors = np.concatenate([embed(texts[i:i + step]) for i in range(0, len(texts), step)])
    wall = time.perf_counter() - t
    cpu = time.process_time() - c
    np.save(cfg["out"], np.asarray(vectors, dtype=np.float32))
    out["configs"].append({**cfg, "wall_s": wall, "cpu_s": cpu})
print("RESULT " + json.dumps(out))
""".replace("WARMUP", str(WARMUP_TEXTS))


def _cards(count: int) -> tuple[list[str], int]:
    import networkx

    from helix.core.config import IndexSettings
    from helix.core.hashing import digest
    from indexers.dense import select_for_embedding
    from indexers.parse import parse_file
    from indexers.walker import walk

    settings = IndexSettings()
    root = Path(networkx.__file__).resolve().parent
    walked = walk(root, settings)
    chunks = sorted((c for item in walked.files
                     for c in parse_file(item.record, item.text, settings).chunks),
                    key=lambda c: (c.path, c.start_line, c.id))
    texts = [text for _, text in select_for_embedding(chunks, settings)]
    sample = sorted(set(texts), key=lambda t: (digest(t), t))[:count]
    return sample, len(texts)


def _configs(kind: str, batch_default: int, tmp: Path) -> list[dict[str, Any]]:
    base = kind.removesuffix("-unsorted")
    grid: list[tuple[int, int, int]]
    if base == "st":
        grid = [(batch_default, t, 1) for t in THREADS]
    elif base == "numpy":
        grid = [(32, 1, 1)]  # the query encoder: one BLAS thread in production
    else:
        grid = [(b, t, 1) for t in THREADS for b in BATCH_SIZES] + [(1, 1, PARALLEL_WORKERS)]
    if kind.endswith("-unsorted"):
        grid = [(UNSORTED_BATCH if base.startswith("onnx") else batch_default, t, 1)
                for t in THREADS]
    return [{"batch": b, "threads": t, "workers": w, "sorted": not kind.endswith("-unsorted"),
             "out": str(tmp / f"{kind}-b{b}-t{t}-w{w}.npy")} for b, t, w in grid]


def _run_worker(kind: str, texts_file: Path, configs: list[dict[str, Any]],
                env: dict[str, str]) -> dict[str, Any]:
    spec = {"kind": kind.removesuffix("-unsorted").removeprefix("onnx-"),
            "texts": str(texts_file), "configs": configs}
    proc = subprocess.run([sys.executable, "-c", WORKER, json.dumps(spec)], capture_output=True,
                          text=True, env=env, timeout=3600, check=False)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if proc.returncode != 0 or line is None:
        raise SystemExit(f"worker {kind} failed:\n{proc.stderr[-3000:]}")
    return dict(json.loads(line[len("RESULT "):]))


def _export_times(env: dict[str, str]) -> dict[str, float]:
    code = ("import json,time,sys\nfrom pathlib import Path\n"
            "from helix.core.config import IndexSettings\n"
            "from indexers.encoder import default_model_path\n"
            "from indexers.onnx_encoder import ensure_model\n"
            "d = Path(default_model_path(IndexSettings()))\nout = {}\n"
            "for v in ('fp32', 'int8'):\n"
            "    t = time.perf_counter(); ensure_model(d, v)\n"
            "    out[v] = round(time.perf_counter() - t, 3)\n"
            "print('RESULT ' + json.dumps(out))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=600, check=True)
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT "))
    return {f"export_{k}_s": v for k, v in json.loads(line[len("RESULT "):]).items()}


COLD_INDEX = r"""
import json, sys, time
t0 = time.perf_counter()
from pathlib import Path
from helix.core.config import load_config
from indexers.build import build_index
root = Path(sys.argv[1])
config = load_config(root)
embedder = None
if sys.argv[2] == "st":
    from indexers.encoder import SentenceTransformerEmbedder
    embedder = SentenceTransformerEmbedder.from_settings(config.index)
report = build_index(root, config, embedder=embedder)
print("RESULT " + json.dumps({"total_s": time.perf_counter() - t0,
                              "embed_s": report.seconds.get("embed"),
                              "embeddings": report.embeddings}))
"""


def _cold_index(tmp: Path, env: dict[str, str]) -> dict[str, Any]:
    import networkx

    source = Path(networkx.__file__).resolve().parent
    out: dict[str, Any] = {}
    for label in ("st", "default"):
        root = tmp / f"nx-{label}"
        shutil.copytree(source, root, ignore=shutil.ignore_patterns("__pycache__"))
        home = tmp / f"home-{label}"
        proc = subprocess.run([sys.executable, "-c", COLD_INDEX, str(root), label],
                              capture_output=True, text=True, timeout=3600, check=False,
                              env={**env, "HELIX_HOME": str(home)})
        line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
        if proc.returncode != 0 or line is None:
            raise SystemExit(f"cold index {label} failed:\n{proc.stderr[-3000:]}")
        out[label] = json.loads(line[len("RESULT "):])
    out["ratio_total"] = round(out["st"]["total_s"] / out["default"]["total_s"], 2)
    out["ask_dry_run_cold_process"] = _ask_cold(
        tmp / "nx-default", {**env, "HELIX_HOME": str(tmp / "home-default")})
    return out


ASK_COLD = r"""
import sys, time
t0 = time.perf_counter()
mode = sys.argv[1]
if mode == "onnx":  # queries through the build's ONNX session instead of the numpy encoder
    import indexers.encoder as encoder
    def onnx_query_embedder(settings):
        from helix.core.config import helix_home
        from indexers.onnx_encoder import shared_encoder
        return shared_encoder(encoder.default_model_path(settings), helix_home())
    encoder.query_embedder = onnx_query_embedder
from helix.cli.main import main
code = main(["ask", "--dry-run", "--json", "--repo", sys.argv[2], sys.argv[3]])
print("RESULT %.4f %s" % (time.perf_counter() - t0, code))
"""
ASK_QUESTION = "Where is edge betweenness centrality computed?"
ASK_REPEATS = 3


def _ask_cold(root: Path, env: dict[str, str]) -> dict[str, Any]:
    """`helix ask --dry-run` in a new process on an indexed tree (embedding cache warm),
    queries embedded by the numpy encoder (today) or by the ONNX session: median of 3."""
    import statistics

    out: dict[str, Any] = {}
    for mode in ("numpy", "onnx"):
        times = []
        for _ in range(ASK_REPEATS):
            proc = subprocess.run([sys.executable, "-c", ASK_COLD, mode, str(root), ASK_QUESTION],
                                  capture_output=True, text=True, timeout=600, check=False,
                                  env=env)
            line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), "")
            if not line:
                raise SystemExit(f"ask ({mode}) failed:\n{proc.stderr[-3000:]}")
            times.append(float(line.split()[1]))
        out[f"{mode}_median_s"] = round(statistics.median(times), 3)
        out[f"{mode}_all_s"] = times
    return out


def _summarise(rows: dict[str, dict[str, Any]], reference: np.ndarray,
               n: int) -> list[dict[str, Any]]:
    table = []
    for (kind, _name), row in sorted(rows.items()):
        vectors = np.load(row["out"])
        cos = (vectors * reference).sum(axis=1)
        table.append({
            "encoder": kind, "batch": row["batch"], "threads": row["threads"],
            "workers": row["workers"],
            "sorted": row["sorted"], "texts_per_s": round(n / row["wall_s"], 1),
            "texts_per_cpu_s": round(n / row["cpu_s"], 1),
            "startup_s": round(row["startup_s"], 2),
            "cos_min": round(float(cos.min()), 5), "cos_mean": round(float(cos.mean()), 5)})
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--texts", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--cold-index", action="store_true")
    parser.add_argument("--encoders", default="st,numpy,onnx-fp32,onnx-int8,"
                        "st-unsorted,onnx-fp32-unsorted")
    args = parser.parse_args()
    from helix.core.config import IndexSettings

    texts, selected = _cards(args.texts)
    batch_default = IndexSettings().embed_batch_size
    kinds = args.encoders.split(",")
    with tempfile.TemporaryDirectory(prefix="helix-embed-bench-") as tmp_name:
        tmp = Path(tmp_name)
        texts_file = tmp / "texts.json"
        texts_file.write_text(json.dumps(texts), encoding="utf-8")
        env = {**os.environ, "HELIX_HOME": str(tmp / "home"), "TOKENIZERS_PARALLELISM": "false"}
        exports = _export_times(env)
        best: dict[tuple[str, str], dict[str, Any]] = {}
        startups: dict[str, list[float]] = {}
        for round_no in range(args.rounds):
            order = kinds[round_no % len(kinds):] + kinds[:round_no % len(kinds)]
            for kind in order:
                configs = _configs(kind, batch_default, tmp)
                result = _run_worker(kind, texts_file, configs, env)
                startups.setdefault(kind, []).append(round(result["startup_s"], 3))
                for cfg in result["configs"]:
                    key = (kind, Path(cfg["out"]).name)
                    if key not in best or cfg["wall_s"] < best[key]["wall_s"]:
                        best[key] = cfg
                print(f"round {round_no + 1}: {kind} done", file=sys.stderr, flush=True)
        for (kind, _name), row in best.items():
            row["startup_s"] = min(startups[kind])
        ref_key = ("st", f"st-b{batch_default}-t2-w1.npy")
        reference = np.load(best[ref_key]["out"])
        table = _summarise(best, reference, len(texts))
        today = next(r for r in table if (r["encoder"], r["batch"], r["threads"], r["sorted"])
                     == ("st", batch_default, 2, True))
        for row in table:
            row["ratio_vs_today"] = round(row["texts_per_s"] / today["texts_per_s"], 2)
        eligible = [r for r in table if r["cos_min"] >= COSINE_BAR and r["sorted"]]
        fastest = max(eligible, key=lambda r: r["texts_per_s"])
        result: dict[str, Any] = {
            "texts": len(texts), "cards_selected_networkx": selected,
            "mean_chars": round(sum(map(len, texts)) / len(texts), 1),
            "rounds": args.rounds, "cpu_count": os.cpu_count(),
            "load_average_end": load_average(None), **exports,
            "startup_s_all_rounds": startups, "today": today,
            "fastest_with_cos_min_ge_0.99": fastest, "table": table}
        write_result(RESULT, result)
        if args.cold_index:
            result["cold_index_networkx"] = _cold_index(tmp, env)
            write_result(RESULT, result)
    for row in table:
        print("{encoder:20} b={batch:<4} t={threads} w={workers} sorted={sorted!s:5} "
              "{texts_per_s:7.1f}/s x{ratio_vs_today:<5} {texts_per_cpu_s:7.1f}/cpu-s "
              "start {startup_s:5.2f}s "
              "cos min {cos_min:.4f} mean {cos_mean:.4f}".format(**row))
    print(f"wrote {RESULT}")


if __name__ == "__main__":
    main()
