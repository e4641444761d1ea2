"""Small git repositories with a known history, built by the history tests."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

GIT = ["git", "-c", "user.email=t@example.org", "-c", "user.name=Tester",
       "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"]
DAY = 86400
EPOCH = 1_600_000_000  # 2020-09-13


def git(repo: Path, *args: str, when: int | None = None, input_text: str | None = None) -> str:
    env = dict(os.environ)
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{when} +0000"
    return subprocess.run([*GIT, *args], cwd=repo, check=True, capture_output=True, text=True,
                          env=env, input=input_text).stdout


def commit(repo: Path, message: str, files: Mapping[str, str | None], when: int) -> str:
    """Write (or, for None, delete) `files`, commit them with `message` at time `when` (one
    `git rm` and one `git add` for all of them: a git process costs ~3 ms CPU, and the history
    tests make hundreds of commits)."""
    removed = [path for path, text in files.items() if text is None]
    written = [path for path, text in files.items() if text is not None]
    for path in written:
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(files[path] or "", encoding="utf-8")
    if removed:
        git(repo, "rm", "-q", "--", *removed)
    if written:
        git(repo, "add", "--", *written)
    git(repo, "commit", "-q", "--allow-empty", "-m", message, when=when)
    return git(repo, "rev-parse", "HEAD").strip()


PARSER = '''"""Parse configuration lines."""


def parse_line(line):
    """Split one `key = value` line into a pair."""
    key, _, value = line.partition("=")
    return key.strip(), value.strip()
'''

CACHE = '''"""A tiny cache with expiry."""


class ExpiringCache:
    """Values forgotten after `ttl` seconds."""

    def __init__(self, ttl):
        self.ttl = ttl
        self.items = {}

    def get(self, key, now):
        value, born = self.items[key]
        if now - born > self.ttl:
            raise KeyError(key)
        return value
'''

NETWORK = '''"""Retrying network requests."""


def fetch_with_retries(url, attempts=3):
    """Fetch `url`, retrying on timeouts up to `attempts` times."""
    for attempt in range(attempts):
        try:
            return _fetch(url)
        except TimeoutError:
            if attempt == attempts - 1:
                raise
    return None


def _fetch(url):
    raise TimeoutError(url)
'''


def build_history_repo(root: Path) -> tuple[Path, dict[str, str]]:
    """A repository with six commits, four of which are cases; returns (repo, name -> sha)."""
    repo = root / "proj"
    repo.mkdir()
    git(repo, "init", "-q")
    shas: dict[str, str] = {}
    shas["init"] = commit(repo, "Initial import of the configuration tools",
                          {"proj/parser.py": PARSER, "proj/cache.py": CACHE,
                           "README.md": "# proj\n\nConfiguration tools.\n"}, EPOCH)
    shas["network"] = commit(repo, "Add network helpers with retries on timeouts",
                             {"proj/network.py": NETWORK}, EPOCH + DAY)  # added only: no case
    shas["parser"] = commit(
        repo, "Fix parse_line on lines without an equals sign\n\nparse_line returned an "
        "empty value for 'key' lines; see #7.\n\nSigned-off-by: Tester <t@example.org>",
        {"proj/parser.py": PARSER + "\n\nSEPARATOR = '='\n",
         "tests/test_parser.py": "def test_parse():\n    assert True\n"}, EPOCH + 2 * DAY)
    shas["cache"] = commit(repo, "ExpiringCache.get raised KeyError for fresh items after ttl",
                           {"proj/cache.py": CACHE.replace("> self.ttl", ">= self.ttl")},
                           EPOCH + 3 * DAY)
    shas["typo"] = commit(repo, "Fix typo in the README", {"README.md": "# proj\n\nTools.\n"},
                          EPOCH + 4 * DAY)
    git(repo, "mv", "proj/network.py", "proj/net.py")
    shas["rename"] = commit(
        repo, "Rename the network module and retry fetch_with_retries on ConnectionError",
        {"proj/net.py": NETWORK.replace("except TimeoutError:",
                                        "except (TimeoutError, ConnectionError):")},
        EPOCH + 5 * DAY)
    shas["retries"] = commit(
        repo, "fetch_with_retries gives up after the configured attempts",
        {"proj/net.py": NETWORK.replace("except (TimeoutError, ConnectionError):",
                                        "except TimeoutError:")}, EPOCH + 6 * DAY)
    return repo, shas
