"""Every test runs with its own HELIX_HOME, and no test reaches the network: a connection to
any address but loopback fails (in this process; subprocesses a test starts run Helix with
no network access needed either)."""

from __future__ import annotations

import ipaddress
import itertools
import os
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# `--cpu-budget` (scripts/test): the tests' CPU seconds, and a bar for each (tests/cpu_budget.py)
pytest_plugins = ("tests.cpu_budget",)

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


# ---- Hypothesis: no deadline. A property test asserts behaviour; how long an example takes
# is measured in benchmarks/, not here: the 200 ms default failed examples of pure functions
# when the machine was busy (tests/test_parse.py's windows, test_fusion, test_core, ...).
# A test's own @settings still sets its max_examples (and may set a deadline of its own).
def _hypothesis_profile() -> None:
    from hypothesis import settings

    settings.register_profile("helix", deadline=None)
    settings.load_profile("helix")


_hypothesis_profile()


# The longest modules start first, so the two workers end together (scripts/test runs
# `--dist loadfile --no-loadscope-reorder`: xdist would order modules by their number of tests,
# and start a 600-test module of pure logic first). The 60 modules of most CPU seconds (self +
# children), longest first, measured in a whole run on rot32 in round 32 (/work/tmp/suite32:
# replayed, the two workers' sums came 221.1 / 223.9 s apart by the order of round 11, 222.3 /
# 222.7 by this one; the last module started was test_unit_denials_sets.py, 8.7 s, on one
# worker while the other idled); the rest follow in name order. The three modules that use a
# Ray cluster are one unit, the first (RAY_UNIT, below).
FIRST = (
    "test_cluster_index.py", "test_readme_platform.py", "test_cluster_evals.py",
    "test_absence_sets.py", "test_verb_members.py", "test_encoder_onnx.py",
    "test_model_helper.py", "test_conversations.py", "test_model_helper_early.py",
    "test_http_api.py", "test_replicas_mcp.py", "test_html_report.py",
    "test_unit_denials_sets.py", "test_eval_runner.py", "test_adversarial_lines32.py",
    "test_large_repo.py", "test_mcp_server.py", "test_named_concept.py", "test_replicas.py",
    "test_continuity_cli.py", "test_hash_seed_determinism.py", "test_vocabulary.py",
    "test_meaning_router.py", "test_router_parallel.py", "test_scan_cost.py", "test_session.py",
    "test_stale_docs.py", "test_parse.py", "test_dense_adapter.py", "test_first_hour_messages.py",
    "test_ranker_same_order.py", "test_tree_bounds.py", "test_docs.py", "test_change_servers.py",
    "test_server_limits.py", "test_architecture_doc.py", "test_live_answer.py",
    "test_secret_hints.py", "test_bad_input.py", "test_readers_unlocked.py",
    "test_encoder_onnx_query.py", "test_corpus.py", "test_build.py", "test_stale_classes.py",
    "test_bm25.py", "test_ask_cli.py", "test_secret_scan_speedups.py", "test_ask_e2e.py",
    "test_history_copies.py", "test_meaning_cost.py", "test_secrets_at_rest.py",
    "test_server_reach.py", "test_adversarial_lines30.py", "test_index_waits.py",
    "test_wordpiece.py", "test_eval_path.py", "test_stale_evidence.py", "test_stale_classes5.py",
    "test_continuity_scenarios.py", "test_english.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: n for n, name in enumerate(FIRST)}
    # stable: in-module order, but a Ray module's tests that use the cluster last (below)
    items.sort(key=lambda item: (rank.get(item.path.name, len(FIRST)),
                                 item.path.name in RAY_MODULES and _uses_ray(item)))


@pytest.fixture(scope="session")
def shared_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One directory of exported embedding models for the session (`HELIX_MODELS_DIR`): the
    first test that indexes with embeddings exports the model there, the others load it (an
    export is ~1.2 CPU s in every new home). tests/test_encoder_onnx.py exports from scratch
    into homes of its own, and tests/test_models_dir.py into $HELIX_HOME/models."""
    return tmp_path_factory.mktemp("shared_models")


@pytest.fixture(scope="session")
def _embeddings_for_session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("shared_embeddings")


@pytest.fixture
def shared_embeddings(helix_home: Path, _embeddings_for_session: Path,
                      monkeypatch: pytest.MonkeyPatch) -> Path:
    """One embedding cache for the session (`HELIX_EMBEDDINGS_DIR`), for the modules that ask
    for it (`pytestmark = pytest.mark.usefixtures("shared_embeddings")`): modules that index the
    same small repositories test after test (tests/change_fixtures.py, history_helpers.py) and
    test what is built from the vectors, not their embedding. Every other test starts with an
    empty cache in its own home; tests/test_embeddings_dir.py checks the variable."""
    monkeypatch.setenv("HELIX_EMBEDDINGS_DIR", str(_embeddings_for_session))
    return _embeddings_for_session


@pytest.fixture(scope="session")
def _build_cache(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from tests._index_cache import BuildCache, shared_directory

    return BuildCache(shared_directory(tmp_path_factory) / "index_cache")


@pytest.fixture
def cached_builds(_build_cache: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Builds from nothing of a repository already built under the same inputs this session
    are copies of that build's index (tests/_index_cache.py), for the modules that ask
    (`pytestmark = pytest.mark.usefixtures("cached_builds")`)."""
    import functools

    import indexers.build

    build = functools.partial(_build_cache.build, indexers.build._build_locked)
    monkeypatch.setattr(indexers.build, "_build_locked", build)
    return _build_cache


_TMP_NUMBERS = itertools.count()


@pytest.fixture
def tmp_path(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Path:
    """pytest's tmp_path (a new empty directory in the session's temporary directory, named
    for the test: its first 30 word characters and a number; kept after the run, pytest's
    default retention) numbered by a counter: pytest's own finds the next number by reading
    every entry of that directory, each test slower than the last (a worker makes ~2,000)."""
    name = re.sub(r"[\W]", "_", request.node.name)[:30]
    base = tmp_path_factory.getbasetemp()
    while True:
        path = base / f"{name}{next(_TMP_NUMBERS)}"
        try:
            path.mkdir()
            return path
        except FileExistsError:  # (a number taken by something else: the next one)
            continue


@pytest.fixture(scope="session")
def _homes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("helix_homes")


_HOME_NUMBERS = itertools.count()


@pytest.fixture(autouse=True)
def helix_home(_homes: Path, monkeypatch: pytest.MonkeyPatch, shared_models: Path) -> Path:
    """A new empty $HELIX_HOME for each test: helix_homes0/helix_home<n>, numbered by a counter
    in a directory of their own. Not `tmp_path_factory.mktemp`: it finds its next number by
    reading every entry of the session's temporary directory, so a worker's ~2,000 homes made
    each later mktemp (and each test's tmp_path) slower than the last: ~2 CPU s a 1,000 tests
    at the start of a session, growing with the square of the count."""
    while True:
        home = _homes / f"helix_home{next(_HOME_NUMBERS)}"
        try:
            home.mkdir()
            break
        except FileExistsError:  # (a number taken by something else: the next one)
            continue
    monkeypatch.setenv("HELIX_HOME", str(home))
    for name in list(os.environ):
        if name.startswith("HELIX_") and name != "HELIX_HOME":
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HELIX_MODELS_DIR", str(shared_models))
    # no background model helper outlives a test (tests/test_model_helper.py turns it on)
    monkeypatch.setenv("HELIX_SYNTHESIS__MODEL_HELPER", "off")
    return home


_REAL_CONNECT = socket.socket.connect
_REAL_CONNECT_EX = socket.socket.connect_ex


class NetworkRefused(OSError):
    """A test tried to reach an address outside this machine."""


def _loopback(address: Any) -> bool:
    if isinstance(address, (str, bytes)):  # a Unix socket path
        return True
    host = address[0] if isinstance(address, tuple) and address else ""
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name: it would need a resolver and a network


def _guarded(real: Any) -> Any:
    def connect(self: socket.socket, address: Any) -> Any:
        if not _loopback(address):
            raise NetworkRefused(f"tests never reach the network (tried {address!r})")
        return real(self, address)

    return connect


@pytest.fixture(autouse=True)
def no_tree_watch_after() -> Iterator[None]:
    """A test that served a repository (a `Workspace` enables the walk's watch for its
    process) leaves no watch, nor its open inotify descriptors, to the next test."""
    yield
    from indexers import tree_watch

    tree_watch.disable()


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _guarded(_REAL_CONNECT))
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded(_REAL_CONNECT_EX))


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Any]:
    """One real PostgreSQL for the session (`tests.engines`): each test takes a database."""
    from tests.engines import start_postgres

    server = start_postgres()
    yield server
    from helix.store.postgres import drop_process_state

    drop_process_state()
    server.stop()


@pytest.fixture
def database_url(postgres_server: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh database of the session's PostgreSQL, set as HELIX_DATABASE_URL."""
    url = postgres_server.fresh_database()
    monkeypatch.setenv("HELIX_DATABASE_URL", url)
    yield url
    from helix.store.postgres import drop_process_state

    drop_process_state()


# ---- The Ray cluster: one test unit, started once, stopped when no later test needs it ----
# The three modules that use `ray_session` are one xdist unit (one worker runs them one after
# another, the cluster's tests last in test_cluster_index.py so that they follow each other),
# and the cluster is stopped as soon as the next test of the worker does not ask for it: an idle
# cluster's nine processes cost ~0.06 CPU s a second for the rest of the session (~25 CPU s a
# run), and starting one ~11 CPU s (measured at load 11, /work/tmp/suite14).
RAY_MODULES = ("test_cluster_index.py", "test_readme_platform.py", "test_cluster_evals.py")
RAY_UNIT = "tests/<ray cluster: " + " ".join(RAY_MODULES) + ">"
_RAY: list[Any] = []  # the running cluster's context manager and the ray module


def _uses_ray(item: pytest.Item) -> bool:
    return "ray_session" in getattr(item, "fixturenames", ())


def xdist_unit(nodeid: str) -> str:
    """The unit of `--dist loadfile`: the test's file, or RAY_UNIT for the Ray modules."""
    path = nodeid.split("::", 1)[0]
    return RAY_UNIT if path.rsplit("/", 1)[-1] in RAY_MODULES else path


class _RayUnit:
    """The xdist hook, registered only where xdist runs (`-p no:xdist` knows no such hook)."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """`--dist loadfile` (scripts/test), with the Ray modules as one unit."""
        if config.getvalue("dist") != "loadfile":
            return None
        from xdist.scheduler import LoadFileScheduling

        class RayUnitScheduling(LoadFileScheduling):
            def _split_scope(self, nodeid: str) -> str:
                return xdist_unit(nodeid)

        return RayUnitScheduling(config, log)


def pytest_configure(config: pytest.Config) -> None:
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_RayUnit(), "helix-ray-unit")


@pytest.fixture
def ray_session() -> Any:
    """A real local Ray cluster (`tests.engines`): started by the first test that asks for
    it, kept for the next ones that do, stopped after the last of a run (below)."""
    if not _RAY:
        from tests.engines import ray_cluster

        cluster: Any = ray_cluster()
        _RAY[:] = [cluster, cluster.__enter__()]
    return _RAY[1]


def stop_unless_next_uses(running: list[Any], nextitem: pytest.Item | None) -> None:
    """Stop the cluster in `running` (emptied) unless the next test asks for it."""
    if running and (nextitem is None or not _uses_ray(nextitem)):
        cluster = running[0]
        running.clear()
        cluster.__exit__(None, None, None)


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    yield
    stop_unless_next_uses(_RAY, nextitem)
