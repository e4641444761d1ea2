"""`helix eval history`: localization cases mined from a git repository's own history.

A commit whose message says what was wrong or what changed becomes a case: the question is the
message, the gold is the non-test source files the commit changed, and the repository is
materialized at the commit's parent (outside the user's checkout, without running any of the
repository's programs). Helix (a controller dry run) and whole-file BM25 are scored on the same
cases.

    rules.py   which commits become cases and what their gold is (pure)
    mine.py    reading the history (read-only git plumbing) and sampling by a seed
    trees.py   materializing one tree per repository, moved from commit to commit
    score.py   file Acc@k, MRR, percentiles (pure)
    bm25.py    the whole-file BM25 baseline over the materialized tree
    run.py     running the cases; report.py renders the tables
"""
