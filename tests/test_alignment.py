"""Plan phase 5: a doc span naming a symbol gets code proof spans and tests attached."""

from __future__ import annotations

from controller_helpers import ask, files_index

from controller.alignment import named_identifiers

FILES = {
    "docs/retry.md": "# Retry policy\n\nThe retry policy is decided by `compute_backoff` in the "
                     "client; see RetryPolicy.\n",
    "client/backoff.py": "def compute_backoff(attempt):\n    \"\"\"Seconds to wait.\"\"\"\n"
                         "    return 2 ** attempt\n\n\nclass RetryPolicy:\n    max_attempts = 3\n",
    "tests/test_backoff.py": "from client.backoff import compute_backoff\n\n\n"
                             "def test_backoff_doubles():\n    assert compute_backoff(2) == 4\n",
}


def test_named_identifiers() -> None:
    names = named_identifiers("Use `compute_backoff` and RetryPolicy, then os.path.join().")
    assert names[:3] == ["compute_backoff", "RetryPolicy", "os.path.join"]


def test_doc_naming_a_symbol_gets_code_and_test_proof_spans() -> None:
    env = ask(files_index(FILES), "What does the retry doc say about the retry policy?")
    spans = env.items.proof_spans
    assert any(s.relation == "definition" and s.symbol == "compute_backoff"
               and s.path == "client/backoff.py" for s in spans)
    assert any(s.relation == "test" and s.path == "tests/test_backoff.py" for s in spans)
    doc_ids = {h.chunk_id for h in env.items.doc_section_hits}
    assert spans and all(s.doc_chunk_id in doc_ids for s in spans)
    align = [s for s in env.controller_steps if s.phase == "align"]
    assert align and align[0].new_chunk_ids
    reasons = [r for e in env.evidence for r in e.reasons]
    assert any(r.startswith("defines compute_backoff") for r in reasons)
    assert any(r.startswith("tests compute_backoff") for r in reasons)


def test_a_name_with_several_definitions_binds_no_proof_span() -> None:
    files = {
        "docs/store.md": "# Store\n\nRecords are read with `get` and the retry policy is "
                         "decided by `compute_backoff`.\n",
        "store/runs.py": "class Runs:\n    def get(self, ref):\n        return ref\n",
        "store/cache.py": "class Cache:\n    def get(self, key):\n        return key\n",
        "client/backoff.py": "def compute_backoff(attempt):\n    return 2 ** attempt\n",
    }
    env = ask(files_index(files), "What does the store doc say about records?")
    symbols = {s.symbol for s in env.items.proof_spans}
    assert "compute_backoff" in symbols  # named once in the repository: bound
    assert not any(s.endswith(".get") or s == "get" for s in symbols)  # two `get`s: never one


def test_a_plain_word_binds_only_when_the_doc_names_where_it_lives() -> None:
    files = {
        "docs/tokens.md": "# Tokens\n\nIdentifiers split into parts: `get` and `name`. The "
                          "`tokenize` function in `text/tokenize.py` does it.\n",
        "store/runs.py": "class Runs:\n    def get(self, ref):\n        return ref\n",
        "text/tokenize.py": "def tokenize(text):\n    return text.split()\n",
    }
    env = ask(files_index(files), "What does the tokens doc say about identifiers?")
    symbols = {s.symbol for s in env.items.proof_spans}
    assert "tokenize" in symbols  # its file is named in the doc
    assert "Runs.get" not in symbols  # `get` is a word here: store/runs.py is never mentioned
