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
whether the three give the same item hashes. With a model that answers at once (an
OpenAI-compatible stub on loopback), Helix's own time per warm ask (the total minus the model
call; target < 300 ms). Then `--clients` (8) clients ask without pause
for `--load` seconds (60) against a server bounded at 4 requests at once: every response is an
answer or a deliberate 503, the run log reads back whole, and the server's memory after
warm-up is set against its memory at the end. Writes benchmarks/results/serve_bench.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _result import load_1m, machine, show, write_result

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


def _serve(root: Path, env: dict[str, str], *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    """A `helix serve` of `root` on a free loopback port, answering /health: (process, URL)."""
    import httpx

    port = _port()
    server = subprocess.Popen([*HELIX, "serve", "--repo", str(root), "--port", str(port),
                               *extra], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                break
        except httpx.TransportError:
            time.sleep(0.1)
    return server, base


def _http(root: Path, questions: list[str], env: dict[str, str], cli: int
          ) -> tuple[list[float], list[Any], list[float]]:
    import httpx

    server, base = _serve(root, env)
    try:
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


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _load(root: Path, questions: list[str], env: dict[str, str], seconds: float,
          clients: int) -> dict[str, Any]:
    """`clients` clients asking without pause for `seconds` against a server bounded at 4
    requests (a 503's Retry-After honoured): answers and deliberate 503s only, the run log
    whole afterwards, memory after warm-up against the end."""
    import concurrent.futures
    import threading

    import httpx

    server, base = _serve(root, env, "--max-concurrent", "4")
    codes: dict[str, int] = {}
    lock = threading.Lock()
    try:
        with httpx.Client(base_url=base, timeout=120) as warm:
            for question in questions:  # warm-up: every question once (caches fill)
                warm.post("/ask", json={"question": question})
        rss_warm = _rss_kb(server.pid)
        stop = time.monotonic() + seconds

        def client(n: int) -> None:
            with httpx.Client(base_url=base, timeout=120) as http:
                i = n
                while time.monotonic() < stop:
                    try:
                        reply = http.post("/ask", json={
                            "question": questions[i % len(questions)]})
                        code = str(reply.status_code)
                    except httpx.HTTPError as exc:
                        reply, code = None, type(exc).__name__
                    with lock:
                        codes[code] = codes.get(code, 0) + 1
                    i += clients
                    if reply is not None and reply.status_code == 503:  # as a client should
                        time.sleep(float(reply.headers.get("retry-after", "1")))

        with concurrent.futures.ThreadPoolExecutor(clients) as pool:
            list(pool.map(client, range(clients)))
        rss_end = _rss_kb(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=60)
    log = subprocess.run([*HELIX, "log", "--json"], env=env, capture_output=True, text=True)
    rows = json.loads(log.stdout) if log.returncode == 0 else None
    return {"seconds": seconds, "clients": clients, "responses": dict(sorted(codes.items())),
            "unexpected": sum(v for k, v in codes.items() if k not in ("200", "503")),
            "run_log_readable": rows is not None and "unreadable" not in log.stderr,
            "rss_after_warmup_mb": round(rss_warm / 1024, 1),
            "rss_end_mb": round(rss_end / 1024, 1)}


_STUB = """
import sys, time
import uvicorn
from fastapi import FastAPI
app = FastAPI()
@app.post("/v1/chat/completions")
def complete(body: dict) -> dict:
    return {"id": "stub", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "stub"),
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": "The answer is in the first item [E1]."}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 9, "total_tokens": 19}}
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


def _model_overhead(root: Path, questions: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Helix's own time per warm ask with a model that answers at once (an OpenAI-compatible
    stub on loopback): the ask's total minus the model call, per question."""
    import httpx

    stub_port = _port()
    stub = subprocess.Popen([sys.executable, "-c", _STUB, str(stub_port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    model_env = {**env, "HELIX_MODEL": "openai/stub-model", "OPENAI_API_KEY": "sk-local-stub",
                 "HELIX_API_BASE": f"http://127.0.0.1:{stub_port}/v1"}
    server, base = _serve(root, model_env)
    try:
        overhead, totals, modes = [], [], []
        with httpx.Client(base_url=base, timeout=300) as client:
            client.post("/ask", json={"question": questions[0], "dry_run": False})  # imports
            for question in questions:
                t0 = time.perf_counter()
                reply = client.post("/ask", json={"question": question, "dry_run": False})
                total = (time.perf_counter() - t0) * 1000
                envelope = reply.json()["envelope"]
                modes.append(envelope["answer_mode"])
                totals.append(total)
                overhead.append(total - float(envelope["timings_ms"].get("model_call", 0.0)))
    finally:
        for process in (server, stub):
            process.terminate()
            process.wait(timeout=60)
    return {"asks": len(totals), "answer_modes": {m: modes.count(m) for m in sorted(set(modes))},
            "total": _stats(totals), "helix_overhead": _stats(overhead),
            "target_overhead_ms": 300}


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
    parser.add_argument("--load", type=float, default=60.0,
                        help="seconds of the concurrent-clients run (0: skip it)")
    parser.add_argument("--clients", type=int, default=8)
    args = parser.parse_args()
    env = {**os.environ, "HELIX_INDEX__EMBED_ENABLED": "false"}
    os.environ["HELIX_INDEX__EMBED_ENABLED"] = "false"
    root = materialize_stdlib()
    subprocess.run([*HELIX, "index", str(root)], env=env, check=True, capture_output=True)
    questions = [case.question for case in load_suite("stdlib_bench").cases][:args.questions]
    http_ms, http_hashes, cli_warm_ms = _http(root, questions, env, args.cold)
    mcp_ms, mcp_hashes = _mcp(root, questions, env)
    cold_ms, cold_hashes = _cold(root, questions[:args.cold], env)
    load = _load(root, questions, env, args.load, args.clients) if args.load > 0 else None
    with_model = _model_overhead(root, questions, env)
    same = sum(1 for a, b, c in zip(http_hashes, mcp_hashes, cold_hashes, strict=False)
               if a == b == c)
    result = {
        "machine": {**machine(with_platform=False), "load_average_end": load_1m(None)},
        "repo": "stdlib (no embeddings)", "questions": len(questions),
        "http_warm": _stats(http_ms), "mcp_warm": _stats(mcp_ms), "cli_cold": _stats(cold_ms),
        "cli_through_server": _stats(cli_warm_ms),
        "targets": {"warm_p50_ms": 50, "warm_p95_ms": 150},
        "cold_over_http_p50": round(_stats(cold_ms)["p50_ms"] / _stats(http_ms)["p50_ms"], 1),
        "same_item_hashes": f"{same}/{len(cold_hashes)}",
        "load": load,
        "with_model": with_model,
    }
    write_result(args.out, result)
    show(result)


if __name__ == "__main__":
    main()
