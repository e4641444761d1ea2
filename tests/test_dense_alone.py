"""Vectors alone never make evidence: nearest neighbours always exist, so a question none of
whose words, names or paths the repository holds is answered "nothing found", with the dense
channel on as without it (`controller.loop._admit`)."""

from __future__ import annotations

from controller_helpers import ask, files_index

FILES = {
    "storage/pool.py": "class CavityPool:\n    \"\"\"A pool of free cavities.\"\"\"\n\n"
                       "    def carve(self, size):\n        return size\n",
    "docs/storage.md": "# Storage\n\nThe cavity pool carves the smallest cavity that fits.\n",
}


def test_a_question_nothing_lexical_answers_has_no_evidence_with_vectors_on() -> None:
    index = files_index(FILES, embed=True)
    assert index.search_dense("zyxwvut quantum flux capacitor", 3)  # neighbours do exist
    env = ask(index, "where is the zyxwvut quantum flux capacitor configured?")
    assert env.evidence == ()
    assert "closest match" not in env.answer.lower()


def test_vectors_still_rank_what_the_words_found() -> None:
    index = files_index(FILES, embed=True)
    env = ask(index, "where is the cavity pool?")
    assert env.evidence and env.evidence[0].path == "storage/pool.py"
    assert any("dense" in r for e in env.evidence for r in e.reasons)
