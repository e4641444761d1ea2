"""The two engines Helix scales out on, started for real for the tests (no mock of either):

- PostgreSQL from the machine's packages (`initdb`, `pg_ctl`: Debian's `postgresql`, which
  scripts/test installs), in a temporary directory, listening on a Unix socket only, run as
  `nobody` when the tests run as root (PostgreSQL refuses to run as root). Each test gets a
  database of its own (`fresh_database`).
- A local Ray cluster (`ray.init` with the machine's CPUs, no dashboard, a small object store).

One PostgreSQL per test session, one Ray cluster per run of the Ray modules (conftest's
fixtures); a missing engine fails the tests that need it with the command that installs it,
never skips them."""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.unprivileged import NOBODY

PG_USER = "helix"
PG_DIRS = ("/usr/lib/postgresql/*/bin",)
RAY_OBJECT_STORE_BYTES = 80 * 1024 * 1024
_numbers = itertools.count(1)


def pg_bin(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    for pattern in PG_DIRS:
        for directory in sorted(glob.glob(pattern), reverse=True):
            if os.access(os.path.join(directory, name), os.X_OK):
                return os.path.join(directory, name)
    raise RuntimeError(f"{name} not found: install PostgreSQL (apt-get install -y postgresql; "
                       "scripts/test does) to run the shared-state tests")


@dataclass
class Postgres:
    directory: Path

    @property
    def socket_dir(self) -> str:
        return str(self.directory)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{PG_USER}@/{database}?host={self.socket_dir}"

    def fresh_database(self) -> str:
        """A new empty database; its URL."""
        import psycopg

        name = f"helix_test_{os.getpid()}_{next(_numbers)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        _as_owner([pg_bin("pg_ctl"), "-D", str(self.directory / "data"), "-m", "immediate",
                   "stop"], check=False)
        shutil.rmtree(self.directory, ignore_errors=True)


def _as_owner(argv: list[str], check: bool = True) -> subprocess.CompletedProcess[bytes]:
    root = os.geteuid() == 0
    return subprocess.run(argv, check=check, capture_output=True, timeout=120,
                          user=NOBODY if root else None, group=NOBODY if root else None,
                          extra_groups=[] if root else None, cwd="/")


def start_postgres() -> Postgres:
    # short and every user's to enter: a Unix socket path has ~100 bytes at most
    directory = Path(tempfile.mkdtemp(prefix="helix-pg-", dir="/tmp"))
    directory.chmod(0o755)
    if os.geteuid() == 0:
        os.chown(directory, NOBODY, NOBODY)
    data = directory / "data"
    try:
        _as_owner([pg_bin("initdb"), "-D", str(data), "-U", PG_USER, "-A", "trust", "-E",
                   "UTF8", "--no-sync", "--no-instructions"])
        options = (f"-k {directory} -c listen_addresses= -c fsync=off "
                   "-c max_connections=200 -c shared_buffers=16MB")
        _as_owner([pg_bin("pg_ctl"), "-D", str(data), "-o", options, "-l",
                   str(directory / "log"), "-w", "-t", "60", "start"])
    except subprocess.CalledProcessError as exc:
        log = directory / "log"
        tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        shutil.rmtree(directory, ignore_errors=True)
        raise RuntimeError(f"PostgreSQL did not start: {exc.stderr!r} {tail}") from None
    return Postgres(directory)


@contextlib.contextmanager
def ray_cluster() -> object:
    """A local Ray cluster for the test session: the machine's CPUs, no dashboard."""
    import ray

    temp = tempfile.mkdtemp(prefix="helix-ray-", dir="/tmp")
    ray.init(address="local", num_cpus=os.cpu_count() or 1, include_dashboard=False,
             log_to_driver=False, configure_logging=False,
             object_store_memory=RAY_OBJECT_STORE_BYTES,
             _temp_dir=temp, _node_ip_address="127.0.0.1")
    try:
        yield ray
    finally:
        ray.shutdown()
        shutil.rmtree(temp, ignore_errors=True)
