"""A `helix` process refuses bad input before it imports what the command would need: the
index builder (networkx, numpy), the settings (pydantic), the run log (sqlite_utils), the
question's service. Every such process is a user's wait (and ~1 CPU s of the test suite's)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# what importing the index builder, the settings or the run log brings in (the error line's
# secret masking may import detect_secrets, and with it an HTTP client: not listed)
HEAVY = ("networkx", "numpy", "pydantic", "sqlite_utils", "indexers.build", "helix.core.config")
# `helix ask` reads its request (a pydantic model) first; not the service nor what it imports
HEAVY_ASK = ("networkx", "numpy", "sqlite_utils", "indexers.build", "helix.service")


def test_a_bad_path_is_refused_before_the_heavy_imports(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing")
    code = (
        "import sys\n"
        "from helix.cli.main import main\n"
        "def run(argv):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit as exc:\n"
        "        print('EXIT', exc.code, file=sys.stderr)\n"
        "def heavy(names):\n"
        "    print('HEAVY=' + ','.join(m for m in names if m in sys.modules), file=sys.stderr)\n"
        f"for argv in (['index', {missing!r}], ['status', {missing!r}],"
        f" ['find', 'fetch', {missing!r}], ['index', '--repo', {missing!r}]):\n"
        "    run(argv)\n"
        f"heavy({HEAVY!r})\n"
        f"run(['ask', 'where is fetch?', '--repo', {missing!r}, '--dry-run'])\n"
        f"heavy({HEAVY_ASK!r})\n"
    )
    env = {"HELIX_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=False, cwd=Path(__file__).parent.parent)
    lines = run.stderr.splitlines()
    assert lines.count("EXIT 2") == 5, run.stderr
    assert sum(line.startswith("helix: path does not exist: ") for line in lines) == 4, lines
    assert sum(line.startswith("helix: not a directory: ") for line in lines) == 1, lines
    assert [line for line in lines if line.startswith("HEAVY=")] == ["HEAVY=", "HEAVY="], lines
