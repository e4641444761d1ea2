"""Warm dry runs over HTTP (`helix serve`) and MCP (`helix mcp`) against the cold CLI, on the
standard library's index, in one run.

    python benchmarks/serve_bench.py [--questions N] [--cold N] [--out FILE]

The standard library is copied to $HELIX_HOME/eval-repos/stdlib once and indexed without
embeddings (lexical: the same for all three paths). Then every question of
data/evals/stdlib_bench.jsonl (or the first N) is asked as a dry run: over HTTP to a running
`helix serve` (a real uvicorn on a loopback port, a real HTTP client), over MCP through the
SDK's client to `helix mcp` on stdio, and as `helix ask --dry-run --json` subprocesses (the
first `--cold` questions), and the same CLI while the server runs (it answers through it).
p50/p95 per path (targets: warm p50 < 50 ms, p95 < 150 ms), and
whether the three give the same item hashes. Writes benchmarks/results/serve_bench.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "serve_bench.json"
HELIX = [sys.executable, "-c", "import sys; from helix.cli.main import main; sys.exit(main())"]


def _stats(values: list[float]) -> dict[str, float]:
    from evals.metrics import percentile

    return {"n": len(values), "p50_ms": round(percentile(values, 50), 1),
            "p95_ms": round(percentile(values, 95), 1),
            "max_ms": round(max(values), 1) if values else 0.0}


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _http(root: Path, questions: list[str], env: dict[str, str], cli: int
          ) -> tuple[list[float], list[Any], list[float]]:
    import httpx

    port = _port()
    server = subprocess.Popen([*HELIX, "serve", "--repo", str(root), "--port", str(port)],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        with httpx.Client(base_url=base, timeout=120) as client:
            client.post("/ask", json={"question": "warm-up: where is json.dumps defined?"})
            times, hashes = [], []
            for question in questions:
                t0 = time.perf_counter()
                reply = client.post("/ask", json={"question": question}).json()
                times.append((time.perf_counter() - t0) * 1000)
                hashes.append(reply["item_hashes"])
        via_server, _ = _cold(root, questions[:cli], env)  # `helix ask` finds the server
        return times, hashes, via_server
    finally:
        server.terminate()
        server.wait(timeout=60)


def _mcp(root: Path, questions: list[str], env: dict[str, str]) -> tuple[list[float], list[Any]]:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=HELIX[0], args=[*HELIX[1:], "mcp", "--repo",
                                                           str(root)], env=env)

    async def run() -> tuple[list[float], list[Any]]:
        async with Client(params) as client:
            await client.call_tool("ask", {"question": "warm-up: where is json.dumps defined?"})
            times, hashes = [], []
            for question in questions:
                t0 = time.perf_counter()
                result = await client.call_tool("ask", {"question": question})
                times.append((time.perf_counter() - t0) * 1000)
                hashes.append((result.structured_content or {}).get("item_hashes"))
            return times, hashes

    return asyncio.run(run())


def _cold(root: Path, questions: list[str], env: dict[str, str]) -> tuple[list[float], list[Any]]:
    times, hashes = [], []
    for question in questions:
        t0 = time.perf_counter()
        done = subprocess.run([*HELIX, "ask", question, "--repo", str(root), "--dry-run",
                               "--json"], env=env, capture_output=True, text=True, check=True)
        times.append((time.perf_counter() - t0) * 1000)
        hashes.append(json.loads(done.stdout)["item_hashes"])
    return times, hashes


def main() -> None:
    from evals.runner import materialize_stdlib
    from evals.suites import load_suite

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=None)
    parser.add_argument("--cold", type=int, default=10)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    env = {**os.environ, "HELIX_INDEX__EMBED_ENABLED": "false"}
    os.environ["HELIX_INDEX__EMBED_ENABLED"] = "false"
    root = materialize_stdlib()
    subprocess.run([*HELIX, "index", str(root)], env=env, check=True, capture_output=True)
    questions = [case.question for case in load_suite("stdlib_bench").cases][:args.questions]
    http_ms, http_hashes, cli_warm_ms = _http(root, questions, env, args.cold)
    mcp_ms, mcp_hashes = _mcp(root, questions, env)
    cold_ms, cold_hashes = _cold(root, questions[:args.cold], env)
    same = sum(1 for a, b, c in zip(http_hashes, mcp_hashes, cold_hashes, strict=False)
               if a == b == c)
    result = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_average_end": os.getloadavg()[0]},
        "repo": "stdlib (no embeddings)", "questions": len(questions),
        "http_warm": _stats(http_ms), "mcp_warm": _stats(mcp_ms), "cli_cold": _stats(cold_ms),
        "cli_through_server": _stats(cli_warm_ms),
        "targets": {"warm_p50_ms": 50, "warm_p95_ms": 150},
        "cold_over_http_p50": round(_stats(cold_ms)["p50_ms"] / _stats(http_ms)["p50_ms"], 1),
        "same_item_hashes": f"{same}/{len(cold_hashes)}",
    }
    args.out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
