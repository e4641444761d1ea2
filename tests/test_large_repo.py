"""The large-repository benchmark at CI size (issue 13): the generator is deterministic, and the
peak memory of indexing grows well below the old per-file cost (regression check on RSS)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GEN = ROOT / "benchmarks" / "gen_large_repo.py"
# Peak RSS (KiB) of the largest process the wrapped command ran (`getrusage(RUSAGE_CHILDREN)`).
RSS_WRAPPER = """
import resource, subprocess, sys
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(code)
"""
SMALL, LARGE = 250, 1000
# Indexing 750 more files of the generated monorepo may add at most this much peak memory
# (~87 KB a file). Before issue 13 (every file's text, chunks, references and the networkx
# graph held at once) 1,500 more added ~190 MB (~127 KB a file); the streaming build adds ~43
# KB a file (measured on 8dd3360: 250 -> 1000 files 101 -> 134 MB, 500 -> 2000 114 -> 177 MB,
# the same bar at half the files and half the CPU).
MAX_GROWTH_MB = 65


def _generate(out: Path, files: int, seed: int = 13) -> dict:
    done = subprocess.run([sys.executable, str(GEN), str(out), "--files", str(files),
                           "--seed", str(seed)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def _peak_index_mb(repo: Path, index_dir: Path, home: Path) -> float:
    env = {"HELIX_HOME": str(home), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", RSS_WRAPPER, sys.executable, "-m", "helix.cli.main", "index",
         str(repo), "--no-embed", "--json", "--index-dir", str(index_dir)],
        capture_output=True, text=True, env=env, check=True)
    return int(done.stdout.strip().splitlines()[-1]) / 1024


def test_the_generator_is_deterministic_and_sized(tmp_path: Path) -> None:
    first = _generate(tmp_path / "a", 300)
    second = _generate(tmp_path / "b", 300)
    other = _generate(tmp_path / "c", 300, seed=14)
    assert first["digest"] == second["digest"] != other["digest"]
    indexed = [p for p in (tmp_path / "a").rglob("*") if p.is_file() and "dist" not in p.parts]
    assert len(indexed) == 300
    kinds = {p.suffix for p in indexed}
    assert {".ts", ".py", ".md", ".json"} <= kinds
    concepts = json.loads((tmp_path / "a" / "concepts.json").read_text("utf-8"))
    for concept, doc in concepts.items():
        assert doc == f"docs/knowledge/{concept}.md" and (tmp_path / "a" / doc).is_file()
    trees = list((tmp_path / "a" / "docs" / "knowledge" / "trees").glob("*.json"))
    assert trees and all(json.loads(t.read_text("utf-8"))["nodes"] for t in trees)
    imports = re.findall(r"^from (\w+)\.", (next((tmp_path / "a" / "services").rglob(
        "[a-z]*_[a-z]*.py"))).read_text("utf-8"), re.M)
    assert imports  # modules import each other


def test_indexing_memory_grows_far_less_than_the_repository(tmp_path: Path) -> None:
    small, large = tmp_path / "small", tmp_path / "large"
    _generate(small, SMALL)
    _generate(large, LARGE)
    home = tmp_path / "home"
    small_mb = _peak_index_mb(small, tmp_path / "idx_small", home)
    large_mb = _peak_index_mb(large, tmp_path / "idx_large", home)
    growth = large_mb - small_mb
    assert growth < MAX_GROWTH_MB, (
        f"indexing {LARGE - SMALL} more files added {growth:.0f} MB of peak RSS "
        f"({small_mb:.0f} -> {large_mb:.0f} MB); the build must stream (issue 13)")
