"""`helix eval corpus`: a training corpus of (commit message -> changed definitions) cases,
mined from many repositories' histories and split by repository (issue 31, part 1).

Each repository of the committed list (`data/evals/corpus_repos.json`) is read at a pinned
revision R (the indexed revision) and a pinned end U: the cases are the non-merge commits in
R..U whose changed definitions exist at R; features about history may only read commits that
are ancestors of R (`prior.py`). Nothing of a repository's program ever runs: git is read
through `helix.core.git`'s read-only plumbing, definitions come from Helix's own tree-sitter
extractor (`indexers.symbols`).

    repos.py     the repository list: validation, the split rule, pinning R and U
    patches.py   `git log -p -U0` hunks, parsed (pure), whitespace-only changes
    defs.py      definitions of a file and the ones a hunk touches (pure)
    rules.py     the corpus filters on top of `evals.history.rules` (pure)
    mine.py      one repository's cases (git I/O), cached per repository (resumable)
    build.py     every repository, the case list, the manifest and its hash
    prior.py     commits before R: the only history a feature may read
"""
