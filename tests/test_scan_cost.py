"""The secret scan's cost (issue 28): findings cached by content hash and detector, the scan
spread over worker processes with the index unchanged, and the settings that govern it out of
a repository's reach. Calls are counted through `indexers.secret_scan.scan` and the build
report, never timed (timings: benchmarks/scan_cost_bench.py)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from concurrent.futures import Future, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from threading import Timer
from typing import Any, ClassVar

import pytest

import indexers.secret_scan as secret_scan
from helix.core.config import HelixConfig, IndexSettings, resolve_config
from helix.core.hashing import digest
from helix.core.secrets import redact_text
from indexers import version
from indexers.build import build_index, ensure_index
from indexers.scan_cache import SCAN_CACHE, ScanCache
from indexers.walker import walk
from tests.index_fixtures import write, write_repo
from tests.secret_corpus import CORPUS

SERIAL = IndexSettings(embed_enabled=False, scan_workers=1)
PARALLEL = IndexSettings(embed_enabled=False, scan_workers=2, scan_parallel_min_bytes=0)
PLANTED = "plumtree-velvet-42"


def _config(settings: IndexSettings = SERIAL, **update: object) -> HelixConfig:
    return HelixConfig(index=settings.model_copy(update=update))


@pytest.fixture()
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the detector is called on in this process."""
    calls: list[str] = []
    real = secret_scan.scan

    def spy(text: str) -> secret_scan.Spans:
        calls.append(text)
        return real(text)

    monkeypatch.setattr(secret_scan, "scan", spy)
    return calls


def _secret_repo(root: Path) -> Path:
    write_repo(root)
    for name, text, _ in CORPUS:
        write(root, f"conf/{name}", text)
    write(root, "conf/copy_of_settings.py", CORPUS[0][1])  # the same bytes twice
    return root


def _texts(repo: Path, index_dir: Path, config: HelixConfig) -> Iterator[tuple[str, str]]:
    index, _ = ensure_index(repo, config, index_dir=index_dir)
    return ((c.id, c.text) for c in index.chunks())


def test_mask_is_what_redact_text_does() -> None:
    """The cached spans are applied exactly as `redact_text` would mask the text (multi-line
    spans keep their newlines)."""
    body = ["MIIEpAIBAAKCAQEA3x9Qk2b7LzQ8mV4nR1tY6wP0sD5fG7hJ9kL2zX4cV8bN3mQ1" for _ in range(4)]
    key = "\n".join(["-----BEGIN RSA PRIVATE KEY-----", *body, "-----END RSA PRIVATE KEY-----"])
    texts = [text for _, text, _ in CORPUS] + ["no secret here\n", "", f"KEY = '''\n{key}\n'''\n"]
    texts.append("\n".join(text for _, text, _ in CORPUS))
    assert any("\n" in text[s:e] for text in texts for s, e, _ in secret_scan.scan(text))
    for text in texts:
        assert secret_scan.mask(text, secret_scan.scan(text)) == redact_text(text)[0]


def test_reindex_scans_only_the_changed_file(tmp_path: Path, counted: list[str]) -> None:
    """With the parse cache dropped (another window size) every file is read again, yet only
    the edited one is scanned; a forced rebuild scans nothing; the mask still holds."""
    repo, index_dir = _secret_repo(tmp_path / "repo"), tmp_path / "idx"
    first = build_index(repo, _config(), index_dir=index_dir)
    distinct = len({w.record.content_hash for w in walk(repo, SERIAL).files})
    assert len(counted) == first.secret_scan["scanned"] == distinct
    assert first.secret_scan["cached"] == 0 and first.secret_scan["workers"] == 0
    assert (index_dir / SCAN_CACHE).is_file()

    counted.clear()
    edited = repo / "pkg" / "util.py"
    edited.write_text(edited.read_text("utf-8") + "\nAPI_TOKEN = 'zq81-mv0x-plq2'\n", "utf-8")
    config = _config(window_lines=40)  # a parse setting: every file is parsed again
    again = build_index(repo, config, index_dir=index_dir)
    assert again.files_parsed == again.files_indexed  # every file was read...
    assert len(counted) == 1 and "zq81-mv0x-plq2" in counted[0]  # ...one was scanned
    assert again.secret_scan["scanned"] == 1
    assert again.secret_scan["cached"] == again.files_indexed - 1

    counted.clear()
    forced = build_index(repo, config, index_dir=index_dir, force=True)
    assert counted == [] and forced.secret_scan["scanned"] == 0
    texts = "\n".join(text for _, text in _texts(repo, index_dir, config))
    assert PLANTED not in texts and "zq81-mv0x-plq2" not in texts
    assert "[REDACTED:" in texts


def test_a_new_detector_scans_again(tmp_path: Path, counted: list[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    repo, index_dir = _secret_repo(tmp_path / "repo"), tmp_path / "idx"
    first = build_index(repo, _config(), index_dir=index_dir)
    counted.clear()
    monkeypatch.setattr(secret_scan, "detector_digest", lambda: "sha256:another-detector")
    rebuilt = build_index(repo, _config(), index_dir=index_dir, force=True)
    assert len(counted) == rebuilt.secret_scan["scanned"] == first.secret_scan["scanned"]
    assert rebuilt.secret_scan["cached"] == 0


def test_the_detector_digest_covers_its_files(tmp_path: Path) -> None:
    """Its modules, a data file added beside them, and nothing else of helix/core."""
    core = tmp_path / "core"
    core.mkdir()
    for path in version.detector_files():
        target = core / path.relative_to(version._DETECTOR)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    names = {p.name for p in version.detector_files()}
    assert {"secrets.py", "secret_structure.py"} <= names and "config.py" not in names
    same = version.detector_digest_of(core)
    assert same == version.detector_digest()
    (core / "secrets.py").write_text((core / "secrets.py").read_text("utf-8") + "\n# v2\n",
                                     "utf-8")
    changed = version.detector_digest_of(core)
    (core / "secret_prefixes.tsv").write_text("hf_\tHugging Face\n", "utf-8")
    assert len({same, changed, version.detector_digest_of(core)}) == 3
    (core / "config.py").write_text("# not the detector\n", "utf-8")
    assert version.detector_digest_of(core) == version.detector_digest_of(core)


def test_parallel_scan_builds_the_same_index(tmp_path: Path) -> None:
    """With workers (whichever files they scan before the parse reaches them: the build never
    waits), the index, chunk by chunk, is the one a serial build writes."""
    repo = _secret_repo(tmp_path / "repo")
    serial = build_index(repo, _config(SERIAL), index_dir=tmp_path / "a")
    parallel = build_index(repo, _config(PARALLEL), index_dir=tmp_path / "b")
    assert parallel.secret_scan["workers"] == 2
    assert parallel.secret_scan["scanned"] == serial.secret_scan["scanned"]
    assert parallel.index_rev == serial.index_rev
    assert (list(_texts(repo, tmp_path / "b", _config(PARALLEL)))
            == list(_texts(repo, tmp_path / "a", _config(SERIAL))))


def test_workers_find_what_the_indexing_process_finds(tmp_path: Path,
                                                      counted: list[str]) -> None:
    """Files the workers scanned before they are read (every one, here: the test waits for
    them) are masked as the indexing process masks them, none scanned again; the two copies
    of one file once."""
    repo = _secret_repo(tmp_path / "repo")
    files = walk(repo, PARALLEL).files
    with secret_scan.Scanner(PARALLEL) as scanner:
        scanner.start(files)
        assert scanner.workers == 2
        wait(list(scanner._batches))
        for wf in files:
            raw = (repo / wf.record.path).read_bytes()
            text = raw.decode("utf-8", errors="replace")
            assert scanner.mask(wf.record.content_hash, text) == redact_text(text)[0]
        contents = {wf.record.content_hash for wf in files}
        assert counted == [] and scanner.stats()["scanned_by_workers"] == len(contents)
        assert len(contents) < len(files)


def test_small_scans_start_no_process(tmp_path: Path) -> None:
    repo = _secret_repo(tmp_path / "repo")
    default = build_index(repo, _config(IndexSettings(embed_enabled=False)),
                          index_dir=tmp_path / "a")
    assert default.secret_scan["workers"] == 0  # a few KB: under scan_parallel_min_bytes
    assert default.secret_scan["scanned"] > 0


class _Pool:
    """A pool that starts no process: records how many workers were asked for; its batches
    are never begun."""

    started: ClassVar[list[int]] = []

    def __init__(self, workers: int, **_: object) -> None:
        _Pool.started.append(workers)

    def submit(self, *_: object) -> Future[object]:
        return Future()

    def shutdown(self, **_: object) -> None:
        pass


def _modules(root: Path, total: int) -> list[Any]:
    """Python modules of `total` bytes in all (64 files), walked."""
    line = "def handler(value):\n    return compute(value, 'label')\n"
    for i in range(64):
        write(root, f"pkg/mod{i}.py", f"# module {i}\n" + line * (total // 64 // len(line)))
    return walk(root, IndexSettings(embed_enabled=False)).files


def test_a_networkx_sized_scan_starts_a_worker(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Past 4 MiB (networkx: 6 MB), a worker starts: the parse of that much code takes long
    enough for one to start and scan ahead of it, and the build never waits for it. Under
    4 MiB the indexing process scans alone."""
    monkeypatch.setattr(secret_scan, "ProcessPoolExecutor", _Pool)
    _Pool.started = []
    settings = IndexSettings(embed_enabled=False, scan_workers=2)
    for total, workers in ((3_500_000, 0), (6_000_000, 2)):
        files = _modules(tmp_path / str(total), total)
        with secret_scan.Scanner(settings, tmp_path / "cache") as scanner:
            scanner.start(files)
            assert scanner.workers == workers
    assert _Pool.started == [2]


def test_worker_count_is_the_setting_or_the_cpus_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    assert secret_scan.worker_count(IndexSettings(scan_workers=3)) == 3
    assert secret_scan.worker_count(IndexSettings(scan_workers=1)) == 0  # this process scans
    # by default one per CPU but the one the build parses on: none on one CPU
    for cpus, workers in ((1, 0), (2, 1), (4, 3), (16, IndexSettings().scan_workers_max)):
        monkeypatch.setattr(secret_scan.os, "sched_getaffinity", lambda _, n=cpus: set(range(n)))
        assert secret_scan.worker_count(IndexSettings()) == workers
    assert secret_scan.worker_count(IndexSettings(scan_workers_max=1)) == 1


def _done(value: object = None, error: BaseException | None = None) -> Future[object]:
    future: Future[object] = Future()
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)
    return future


def test_bytes_changed_after_a_worker_read_them_are_scanned_where_read(
        counted: list[str]) -> None:
    """A worker's findings count only for the bytes it read; a dead worker's files are
    scanned by the indexing process."""
    scanner = secret_scan.Scanner(SERIAL)
    text = CORPUS[0][1]
    now = digest(text.encode())
    scanner._pending["sha256:walked"] = _done([("sha256:walked", "sha256:older", ())])  # type: ignore[assignment]
    assert scanner.mask("sha256:walked", text) == redact_text(text)[0] and len(counted) == 1
    scanner._pending[now] = _done(error=BrokenProcessPool("killed"))  # type: ignore[assignment]
    assert scanner.mask(now, text) == redact_text(text)[0]
    # here: the bytes as they are now (the worker's were older), then the dead worker's file
    assert len(counted) == 2
    assert scanner.stats()["scanned"] == 3 and scanner.stats()["scanned_by_workers"] == 1


def test_a_batch_no_worker_started_is_taken_back(counted: list[str]) -> None:
    """The workers are behind: the indexing process cancels the batch and scans its files as
    it reads them, never waiting for it."""
    scanner = secret_scan.Scanner(SERIAL)
    first, second = CORPUS[0][1], CORPUS[1][1]
    waiting: Future[list[secret_scan.Result]] = Future()  # queued, not started
    hashes = [digest(first.encode()), digest(second.encode())]
    scanner._batches[waiting] = hashes
    scanner._pending.update(dict.fromkeys(hashes, waiting))
    assert scanner.mask(hashes[0], first) == redact_text(first)[0]
    assert waiting.cancelled() and scanner._pending == {} and len(counted) == 1
    assert scanner.mask(hashes[1], second) == redact_text(second)[0] and len(counted) == 2


def test_a_batch_a_worker_is_on_is_not_waited_for(counted: list[str]) -> None:
    """A worker still starting or behind holds the file's batch: the indexing process scans
    the file itself rather than wait (here the worker would take a second); the batch's
    findings are kept once it is done, and the file it holds that the indexing process has
    not read yet is not scanned again."""
    scanner = secret_scan.Scanner(SERIAL)
    first, second = CORPUS[0][1], CORPUS[1][1]
    hashes = [digest(first.encode()), digest(second.encode())]
    running: Future[list[secret_scan.Result]] = Future()
    assert running.set_running_or_notify_cancel()  # a worker began it: it cannot be cancelled
    scanner._batches[running] = hashes
    scanner._pending.update(dict.fromkeys(hashes, running))
    results = [(h, h, secret_scan.scan(t)) for h, t in zip(hashes, (first, second), strict=True)]
    counted.clear()
    late = Timer(1.0, running.set_result, [results])
    late.start()
    try:
        assert scanner.mask(hashes[0], first) == redact_text(first)[0]
        assert len(counted) == 1 and not running.done()  # scanned here, not waited for
    finally:
        late.join()
    assert scanner.mask(hashes[1], second) == redact_text(second)[0]
    assert len(counted) == 1 and scanner._pending == {}  # the worker's findings, kept
    assert scanner.stats()["scanned"] == 2 and scanner.stats()["scanned_by_workers"] == 1


def test_a_repository_cannot_turn_the_scan_off_or_start_processes(
        tmp_path: Path, helix_home: Path) -> None:
    repo = _secret_repo(tmp_path / "repo")
    (repo / ".helix.toml").write_text(
        "[helix.index]\nmask_secrets = false\nscan_workers = 64\nscan_workers_max = 64\n"
        "scan_parallel_min_bytes = 0\nwindow_lines = 50\n", encoding="utf-8")
    config, notices = resolve_config(repo, env={"HELIX_HOME": str(helix_home)})
    assert config.index == IndexSettings(window_lines=50)
    assert [n.split(" from ")[0] for n in notices] == [
        "ignored index.mask_secrets", "ignored index.scan_workers",
        "ignored index.scan_workers_max", "ignored index.scan_parallel_min_bytes"]
    config = config.model_copy(update={"index": config.index.model_copy(
        update={"embed_enabled": False})})
    report = build_index(repo, config, index_dir=tmp_path / "idx")
    assert report.secret_scan["masked"] is True
    assert PLANTED not in "\n".join(t for _, t in _texts(repo, tmp_path / "idx", config))
    # the user may (to measure the scan's cost): the index then holds the text as it is
    (helix_home / "config.toml").write_text("[index]\nmask_secrets = false\n", "utf-8")
    mine, _ = resolve_config(repo, env={"HELIX_HOME": str(helix_home)})
    assert mine.index.mask_secrets is False
    off = _config(mask_secrets=False)
    assert build_index(repo, off, index_dir=tmp_path / "off").secret_scan["masked"] is False
    assert PLANTED in "\n".join(t for _, t in _texts(repo, tmp_path / "off", off))


def test_the_scan_cache_is_bounded_and_survives_damage(tmp_path: Path,
                                                       counted: list[str]) -> None:
    cache = ScanCache(None, "d")
    for n in range(10):
        cache.put(f"h{n}", [(0, 1, "k")] if n % 2 else [])
    cache.prune({"h0", "h1", "h2"})
    assert len(cache) == 6 and cache.get("h1") == ((0, 1, "k"),)  # current + as many others

    repo, index_dir = _secret_repo(tmp_path / "repo"), tmp_path / "idx"
    first = build_index(repo, _config(), index_dir=index_dir)
    (index_dir / SCAN_CACHE).write_text('{"version": 1, "entries": [', "utf-8")
    counted.clear()
    again = build_index(repo, _config(), index_dir=index_dir, force=True)
    assert again.secret_scan["scanned"] == first.secret_scan["scanned"] == len(counted)
    assert again.index_rev == first.index_rev


def test_helix_index_says_what_it_scanned(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from cli_helpers import run

    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    repo = write_repo(tmp_path / "repo")
    code, out, _ = run(["index", str(repo)], capsys)
    assert code == 0 and "secrets: 5 files scanned, 0 from the scan cache" in out
    code, out, _ = run(["index", str(repo), "--json", "--force"], capsys)
    assert code == 0 and json.loads(out)["secret_scan"]["cached"] == 5
    monkeypatch.setenv("HELIX_INDEX__MASK_SECRETS", "false")
    code, out, _ = run(["index", str(repo)], capsys)
    assert "secrets: not masked (index.mask_secrets = false)" in out
