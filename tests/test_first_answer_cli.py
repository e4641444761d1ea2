"""The first answer on a new repository (issue 11) through the CLI: guard rails on where Helix
indexes, the progress bar only on a terminal, the dense note, the runtime settings."""

from __future__ import annotations

import io
import json
import os
import time
from pathlib import Path

import pytest

from helix.cli.progress import dense_line, wanted
from helix.core.config import HelixConfig, IndexSettings, resolve_config
from helix.core.paths import count_files, implicit_root_problem
from helix.core.ports import FakeEmbedder
from indexers import dense_worker
from indexers.build import build_index
from indexers.store import IndexStore
from tests.cli_helpers import run
from tests.index_fixtures import write_repo

QUESTION = "where is the retry policy decided?"


def _files(root: Path, count: int) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        (root / f"note_{n}.txt").write_text(f"note {n}\n", encoding="utf-8")
    return root


@pytest.fixture()
def no_embed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")


def test_many_files_outside_git_are_refused_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        no_embed: None) -> None:
    folder = _files(tmp_path / "downloads", 12)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("HELIX_INDEX__MAX_FILES", "10")
    code, out, err = run(["ask", QUESTION, "--dry-run"], capsys)
    assert code == 2 and out == ""
    assert err == (f"helix: {folder} is not inside a git repository and holds more than 10 "
                   "files; say which repository to index (--repo PATH), or pass --yes to index "
                   "it anyway (index.max_files sets the limit)\n")
    code, _, err = run(["index"], capsys)
    assert code == 2 and "(helix index PATH)" in err and err.count("\n") == 1
    assert not (Path(os.environ["HELIX_HOME"]) / "indexes").exists()  # nothing indexed
    # --yes, a higher limit, --repo, or a git repository: indexed
    code, _, err = run(["ask", QUESTION, "--dry-run", "--yes"], capsys)
    assert code == 0, err
    monkeypatch.setenv("HELIX_INDEX__MAX_FILES", "100")
    assert run(["ask", QUESTION, "--dry-run"], capsys)[0] == 0
    monkeypatch.setenv("HELIX_INDEX__MAX_FILES", "10")
    assert run(["ask", QUESTION, "--dry-run", "--repo", str(folder)], capsys)[0] == 0
    (folder / ".git").mkdir()
    assert run(["ask", QUESTION, "--dry-run"], capsys)[0] == 0


def test_home_root_and_temp_are_refused_even_when_small(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        no_embed: None) -> None:
    home = _files(tmp_path / "home", 2)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home)
    code, _, err = run(["ask", QUESTION, "--dry-run"], capsys)
    assert code == 2 and err.startswith(f"helix: {home.resolve()} is your home directory, "
                                        "not a repository; say which repository")
    assert implicit_root_problem(Path("/"), 0) == "/ is the filesystem root, not a repository"
    import tempfile

    temp = Path(tempfile.gettempdir()).resolve()
    assert implicit_root_problem(temp, 0) == f"{temp} is the temporary directory, not a repository"
    assert implicit_root_problem(tmp_path, 10) is None  # below it: a directory like any other


def test_counting_stops_at_the_limit(tmp_path: Path) -> None:
    folder = _files(tmp_path / "many", 50)
    (folder / ".git").mkdir()
    _files(folder / ".git" / "objects", 30)  # not counted
    assert count_files(folder, 1000) == 50
    assert count_files(folder, 7) == 7


def test_a_repository_config_cannot_raise_the_limit(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    (repo / ".helix.toml").write_text("[helix.index]\nmax_files = 999999\n", encoding="utf-8")
    config, notices = resolve_config(repo)
    assert config.index.max_files == IndexSettings().max_files
    assert notices and notices[0].startswith("ignored index.max_files from ")


def test_runtime_settings_leave_the_index_and_evidence_hashes_alone() -> None:
    base = HelixConfig()
    runtime = HelixConfig(index=IndexSettings(max_files=3, background_dense=False,
                                              dense_inline_max=5, dense_publish_vectors=7,
                                              dense_publish_seconds=1.5))
    assert runtime.index_hash == base.index_hash and runtime.evidence_hash == base.evidence_hash
    other = HelixConfig(index=IndexSettings(embed_max_chunks=10))
    assert other.index_hash != base.index_hash  # content settings still count


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


def test_progress_bar_only_on_a_terminal_and_never_with_json() -> None:
    assert wanted(False, _Stream(True))
    assert not wanted(True, _Stream(True))
    assert not wanted(False, _Stream(False))
    assert not wanted(False, object())  # type: ignore[arg-type]  # no isatty at all


def test_ask_draws_no_bar_on_a_pipe_and_hands_progress_to_the_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        no_embed: None) -> None:
    repo = write_repo(tmp_path / "repo")
    code, _out, err = run(["ask", QUESTION, "--dry-run", "--repo", str(repo)], capsys)
    # stderr is no terminal here: no bar, only what is about to happen and what it built
    assert code == 0 and err == (
        f"helix: no index of {repo.resolve()} yet: building it first (files, symbols, graph, "
        "BM25; later questions re-index only what changed)\nhelix: index built (5 files)\n")
    from helix.core.config import load_config
    from helix.service import ask

    stages: list[tuple[str, int, int]] = []
    (repo / "pkg" / "more.py").write_text("def more():\n    return 1\n", encoding="utf-8")
    ask(QUESTION, root=repo, config=load_config(repo), dry_run=True,
        progress=lambda *event: stages.append(event))
    assert ("walk", 0, 0) in stages and [s[0] for s in stages[-2:]] == ["write", "done"]
    parsed = [s for s in stages if s[0] == "parse"]
    assert parsed and parsed[-1][1] == parsed[-1][2] == 6  # files parsed: done of total


def test_ask_says_which_state_answered_while_dense_builds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo = write_repo(tmp_path / "repo")
    monkeypatch.setattr(dense_worker, "start", lambda *a: None)  # no worker: state stays
    monkeypatch.setenv("HELIX_INDEX__DENSE_INLINE_MAX", "0")
    code, out, err = run(["ask", QUESTION, "--dry-run", "--json", "--repo", str(repo)], capsys)
    assert code == 0, err
    env = json.loads(out)
    total = env["dense_state"]["total"]
    assert env["dense_state"] == {"vectors": 0, "total": total, "complete": False, "all": False,
                                  "eligible": total, "chunks": env["dense_state"]["chunks"],
                                  "generation": env["dense_state"]["generation"]}
    assert 0 < total <= env["dense_state"]["chunks"]  # coverage of the repository (issue 13)
    assert env["evidence"]  # answered from the lexical index
    assert err.splitlines()[1] == "helix: index built (5 files)"
    assert err.splitlines()[2] + "\n" == (
                   f"helix: dense: 0% (0 of {total} vectors); this answer used bm25, files, "
                   "symbol, graph; no dense worker is running (`helix status` says why; "
                   "`helix index` embeds the rest)\n")
    code, out, err = run(["ask", QUESTION, "--repo", str(repo)], capsys)
    assert code == 0 and f"dense: 0% (0 of {total} vectors)" in out
    # --wait: every vector first; the same answer as an index built synchronously
    code, out, _ = run(["ask", QUESTION, "--dry-run", "--json", "--wait", "--repo", str(repo)],
                       capsys)
    waited = json.loads(out)
    assert code == 0 and waited["dense_state"] == {
        **env["dense_state"], "vectors": total, "total": total, "complete": True,
        "generation": waited["dense_state"]["generation"]}
    # which vectors answered: the complete set is another generation than the empty one
    assert waited["dense_state"]["generation"] != env["dense_state"]["generation"]
    monkeypatch.setenv("HELIX_HOME", str(tmp_path / "other_home"))
    monkeypatch.delenv("HELIX_INDEX__DENSE_INLINE_MAX")
    code, out, _ = run(["ask", QUESTION, "--dry-run", "--json", "--repo", str(repo)], capsys)
    sync = json.loads(out)
    assert sync["item_hashes"] == waited["item_hashes"]
    assert sync["index_rev"] == waited["index_rev"]


def test_no_dense_state_without_embeddings(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str],
                                           no_embed: None) -> None:
    repo = write_repo(tmp_path / "repo")
    code, out, err = run(["ask", QUESTION, "--dry-run", "--json", "--repo", str(repo)], capsys)
    assert code == 0 and "dense_state" not in json.loads(out) and "dense:" not in err
    assert dense_line(None) is None
    assert dense_line({"vectors": 3, "total": 3, "complete": True}) is None
    assert dense_line({"vectors": 1234, "total": 3000, "complete": False}, 77) == (
        "dense: building 41% (1,234 of 3,000 vectors, worker pid 77)")
    assert dense_line({"vectors": 1234, "total": 3000, "complete": False}) == (
        "dense: 41% (1,234 of 3,000 vectors)")
    from helix.cli.ask_cmd import dense_note
    from helix.core.envelope import DenseState, Envelope

    env = Envelope.model_construct(dense_state=DenseState(vectors=5, total=10, complete=False),
                                   controller_steps=())
    assert dense_note(env, 42) == (
        "dense: building 50% (5 of 10 vectors, worker pid 42); this answer used none (later "
        "answers use the vectors as they come; --wait waits for all)")


def test_index_background_then_stop_then_status(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    repo = write_repo(tmp_path / "repo")
    monkeypatch.setenv("HELIX_INDEX__DENSE_INLINE_MAX", "0")
    started: list[int] = []
    monkeypatch.setattr(dense_worker, "start", lambda *a: started.append(1))
    code, out, _err = run(["index", str(repo), "--background", "--json"], capsys)
    report = json.loads(out)
    assert code == 0 and started == [1] and not report["dense_state"]["complete"]
    code, out, _ = run(["index", str(repo), "--stop"], capsys)
    assert code == 0 and out.startswith("no dense worker was running")
    code, out, _ = run(["status", str(repo)], capsys)
    assert "dense: incomplete (0 of " in out
    assert "dense worker: stopped (`helix index` finishes the vectors" in out
    code, out, _ = run(["index", str(repo), "--stop", "--force"], capsys)
    assert code == 2
    code, out, _ = run(["index", str(repo)], capsys)  # finishes them in the foreground
    assert code == 0
    code, out, _ = run(["status", str(repo), "--json"], capsys)
    status = json.loads(out)
    assert status["dense_state"]["complete"] and status["worker"] is None  # pause lifted


def test_worker_generations_survive_a_reader_for_a_while(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """Publishing every few seconds must not delete the generation a slow reader opened two
    publishes ago (it is kept for a grace period); an ordinary build prunes as before."""
    repo = write_repo(tmp_path / "repo")
    index_dir = tmp_path / "idx"
    build_index(repo, HelixConfig(), index_dir=index_dir, embedder=FakeEmbedder())
    store = IndexStore(index_dir)
    first = store.current_dir()
    assert first is not None
    for _ in range(3):
        writer = store.writer()
        manifest = store.read_manifest(store.current_dir())  # type: ignore[arg-type]
        writer.link_parts(store.current_dir(), manifest, "dense")  # type: ignore[arg-type]
        time.sleep(0.01)
        writer.commit(index_hash=manifest.index_hash, embed_model_key=manifest.embed_model_key,
                      files=manifest.files, repo_rev=manifest.repo_rev, counts=manifest.counts,
                      report=manifest.report, created=time.time(), prune_grace_s=600.0)
    assert first.is_dir()  # three publishes later
    store.prune()
    gens = [p for p in index_dir.iterdir() if p.name.startswith("gen-")]
    assert len(gens) == 2 and not first.exists()
