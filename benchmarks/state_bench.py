"""Shared state in PostgreSQL: a session turn's latency against SQLite, and 8 clients on 2
replicas for 60 s with every acknowledged turn accounted for.

    python benchmarks/state_bench.py [--database-url URL] [--turns 40] [--clients 8]
        [--seconds 60] [--out FILE]

Without `--database-url` a PostgreSQL is started in a temporary directory (initdb + pg_ctl,
as the tests do: `tests/engines.py`). Part 1, in this process on the continuity fixture
repository: the same conversation (a root question and three follow-ups, dry runs) is held
`--turns / 4` times in fresh sessions on the embedded SQLite file and on PostgreSQL, turns
interleaved backend by backend; p50/p95 of a whole turn on each, and the difference (what the
shared database adds). Part 2: two real `helix serve` replicas (own HELIX_HOME each) on one
database; `--clients` threads for `--seconds` seconds, client k talking in session k mod 4
(two clients per session) and sending each turn to the replica k's turn number picks (so a
session's turns alternate between replicas and race each other). Then the database is read:
every acknowledged turn (HTTP 200) is stored with its text under the number the reply gave
(none lost), each session's turns are 1..n with no gap or duplicate and its turn count is n
(none interleaved). Writes benchmarks/results/state_bench.json.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from _result import load_1m, machine, show, write_result

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "state_bench.json"
FIXTURE = ROOT / "data" / "fixtures" / "continuity_repo"
TALK = ("where is the BM25 index built?", "open the second one", "who calls it?",
        "open the first one")
SESSIONS = 4
TOKEN = "state-bench-token-0123456789"


def _stats(values: list[float]) -> dict[str, float]:
    from evals.metrics import percentile

    return {"n": len(values), "p50_ms": round(percentile(values, 50), 2),
            "p95_ms": round(percentile(values, 95), 2)}


def _turn_latency(repo: Path, url: str, conversations: int) -> dict[str, Any]:
    from helix.core.config import load_config
    from helix.session.runner import run_turn

    config = load_config(repo, flags={"index.embed_enabled": False})
    times: dict[str, list[float]] = {"sqlite": [], "postgres": []}
    commits = _commits(url)
    for number in range(conversations + 1):  # the first round warms both up, not counted
        for backend in ("sqlite", "postgres"):
            if backend == "postgres":
                os.environ["HELIX_DATABASE_URL"] = url
            else:
                os.environ.pop("HELIX_DATABASE_URL", None)
            for text in TALK:
                started = time.perf_counter()
                run_turn(f"bench-{number}", text, root=repo, config=config, dry_run=True)
                if number:
                    times[backend].append((time.perf_counter() - started) * 1000)
    os.environ.pop("HELIX_DATABASE_URL", None)
    turns = (conversations + 1) * len(TALK)
    sqlite, postgres = _stats(times["sqlite"]), _stats(times["postgres"])
    return {"sqlite": sqlite, "postgres": postgres,
            # statements and transactions the server committed per turn: its round trips,
            # whatever the machine's load (each costs a Unix-socket round trip)
            "postgres_commits_per_turn": round((_commits(url) - commits) / turns, 1),
            "added_ms": {"p50": round(postgres["p50_ms"] - sqlite["p50_ms"], 2),
                         "p95": round(postgres["p95_ms"] - sqlite["p95_ms"], 2)}}


def _commits(url: str) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT xact_commit FROM pg_stat_database"
                           " WHERE datname = current_database()").fetchone()
    return int(row[0]) if row else 0


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _replica(repo: Path, home: Path, url: str) -> tuple[subprocess.Popen[bytes], str]:
    import httpx

    port = _port()
    env = {**os.environ, "HELIX_HOME": str(home), "HELIX_DATABASE_URL": url,
           "HELIX_INDEX__EMBED_ENABLED": "false", "HELIX_SERVE_TOKEN": TOKEN}
    process = subprocess.Popen([sys.executable, "-m", "helix.cli.main", "serve", "--repo",
                                str(repo), "--port", str(port), "--max-concurrent", "8"],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                return process, base
        except httpx.TransportError:
            time.sleep(0.2)
    raise RuntimeError("a replica did not start")


def _load(repo: Path, url: str, work: Path, clients: int, seconds: float) -> dict[str, Any]:
    import httpx
    import psycopg

    replicas = [_replica(repo, work / f"home-{n}", url) for n in range(2)]
    acked: list[tuple[str, int, str]] = []
    statuses: dict[str, int] = {}
    latencies: list[float] = []
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client(k: int) -> None:
        session, n = f"load-{k % SESSIONS}", 0
        with httpx.Client(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=300) as http:
            while time.monotonic() < stop:
                n += 1
                text = f"{TALK[n % len(TALK)]} [client {k} turn {n}]"
                base = replicas[(k + n) % 2][1]
                started = time.perf_counter()
                try:
                    reply = http.post(f"{base}/ask", json={"question": text,
                                                           "session": session})
                    code = str(reply.status_code)
                except httpx.TransportError as exc:
                    code, reply = type(exc).__name__, None
                with lock:
                    statuses[code] = statuses.get(code, 0) + 1
                    if reply is not None and reply.status_code == 200:
                        latencies.append((time.perf_counter() - started) * 1000)
                        acked.append((session, int(reply.json()["turn_id"]), text))

    try:
        with concurrent.futures.ThreadPoolExecutor(clients) as pool:
            list(pool.map(client, range(clients)))
    finally:
        for process, _ in replicas:
            process.terminate()
            process.wait(60)
    with psycopg.connect(url) as conn:
        stored = conn.execute("SELECT s.name, t.turn_id, t.user_text, s.turn_count FROM turns t"
                              " JOIN sessions s ON s.id = t.session_id"
                              " WHERE s.name LIKE 'load-%' ORDER BY 1, 2").fetchall()
    by_session: dict[str, list[int]] = {}
    counts: dict[str, int] = {}
    texts = {(name, turn): text for name, turn, text, _ in stored}
    for name, turn, _, count in stored:
        by_session.setdefault(name, []).append(turn)
        counts[name] = count
    lost = sum(1 for session, turn, text in acked if texts.get((session, turn)) != text)
    interleaved = sum(1 for name, turns in by_session.items()
                      if turns != list(range(1, len(turns) + 1)) or counts[name] != len(turns))
    duplicate_acks = len(acked) - len({(s, t) for s, t, _ in acked})
    return {"clients": clients, "replicas": 2, "sessions": SESSIONS, "seconds": seconds,
            "requests": sum(statuses.values()), "statuses": dict(sorted(statuses.items())),
            "acknowledged_turns": len(acked), "stored_turns": len(stored),
            "lost_turns": lost, "interleaved_sessions": interleaved,
            "duplicate_turn_numbers_acknowledged": duplicate_acks,
            "turns_per_s": round(len(acked) / seconds, 2), "latency": _stats(latencies)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="helix-state-bench-"))
    os.environ["HELIX_HOME"] = str(work / "home")
    server = None
    url = args.database_url
    if url is None:
        from tests.engines import start_postgres

        server = start_postgres()
        url = server.fresh_database()
    try:
        repo = work / "repo"
        shutil.copytree(FIXTURE, repo)
        latency = _turn_latency(repo, url, max(1, args.turns // len(TALK)))
        load = _load(repo, url, work, args.clients, args.seconds)
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(work, ignore_errors=True)
    result = {"machine": {**machine(with_platform=False), "load_average_1m": load_1m()},
              "postgres_started_here": server is not None, "turn": latency, "load": load}
    write_result(args.out, result)
    show(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
