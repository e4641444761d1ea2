"""A small git repository with known changes, for `helix drift` and `helix stale-docs`.

    v1   the code and a guide whose sections name it
    v2   one commit: a changed default (`Client(timeout=5.0)` -> 10.0), a renamed function
         (`compute_backoff` -> `backoff_delay`), a moved file (src/util/headers.py ->
         src/http/headers.py, content kept), a reformatted body (`render_body`, same tokens)
    v3   the guide's Timeouts section brought up to date (10 seconds)
"""

from __future__ import annotations

from pathlib import Path

from tests.history_helpers import DAY, EPOCH, commit, git

CLIENT = '''"""An HTTP client."""


class Client:
    """Sends requests, with retries."""

    def __init__(self, timeout=5.0, retries=3):
        self.timeout = timeout
        self.retries = retries

    def send(self, request):
        for attempt in range(self.retries):
            response = request.perform(self.timeout)
            if response.ok:
                return response
        raise TimeoutError("gave up")
'''

BACKOFF = '''"""Waiting between attempts."""


def compute_backoff(attempt, base=0.5):
    """Seconds to wait before attempt number `attempt`."""
    return base * (2 ** attempt)
'''

HEADERS = '''"""Header helpers."""


def merge_headers(defaults, extra):
    """The default headers, overridden by `extra`."""
    merged = dict(defaults)
    merged.update(extra)
    return merged
'''

RENDER = '''"""Rendering request bodies."""


def render_body(body, indent=2):
    """The body as indented JSON text."""
    import json
    text = json.dumps(body, indent=indent, sort_keys=True)
    return text + "\\n"
'''

RENDER_REFORMATTED = '''"""Rendering request bodies."""


def render_body(body, indent=2):
    """The body as indented JSON text."""
    import json

    # sorted keys: the same body always renders the same
    text = json.dumps(
        body,
        indent=indent,
        sort_keys=True,
    )
    return text + '\\n'
'''

GUIDE = '''# Guide

## Timeouts

`Client` gives up after 5 seconds by default: pass `timeout` to wait longer.

## Backoff

Between attempts the client sleeps `compute_backoff(attempt)` seconds, doubling each time.

## Headers

`merge_headers()` lays the extra headers over the defaults.

## Rendering

`render_body()` writes the body as JSON with sorted keys.

## Support

Ask on the mailing list.
'''

QUESTIONS = {
    "default": "what is the default timeout of Client?",
    "backoff": "where is compute_backoff defined?",
    "headers": "where is merge_headers defined?",
    "render": "where is render_body defined?",
}


def build(root: Path) -> tuple[Path, dict[str, str]]:
    """The repository at v1 (returns it and {"v1": sha})."""
    repo = root / "proj"
    repo.mkdir()
    git(repo, "init", "-q")
    shas = {"v1": commit(repo, "Client, backoff, headers, rendering and a guide", {
        "src/client.py": CLIENT, "src/backoff.py": BACKOFF, "src/util/headers.py": HEADERS,
        "src/render.py": RENDER, "docs/guide.md": GUIDE}, EPOCH)}
    return repo, shas


def change(repo: Path, shas: dict[str, str]) -> None:
    """v2: the four known changes, in one commit."""
    (repo / "src" / "http").mkdir()
    git(repo, "mv", "src/util/headers.py", "src/http/headers.py")
    shas["v2"] = commit(repo, "Longer timeout, backoff_delay, http/ headers, tidy rendering", {
        "src/client.py": CLIENT.replace("timeout=5.0", "timeout=10.0"),
        "src/backoff.py": BACKOFF.replace("compute_backoff", "backoff_delay"),
        "src/render.py": RENDER_REFORMATTED}, EPOCH + DAY)


def fix_docs(repo: Path, shas: dict[str, str]) -> None:
    """v3: the Timeouts section says what the code does again."""
    shas["v3"] = commit(repo, "docs: the timeout is 10 seconds now", {
        "docs/guide.md": GUIDE.replace("after 5 seconds", "after 10 seconds")}, EPOCH + 2 * DAY)
