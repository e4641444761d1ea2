"""The `drift` and `stale_docs` sections of the settings: how much history `helix drift` and
`helix stale-docs` read and what they call a change. Yours only: a repository's own config
cannot set them (`helix.core.config.REPO_SECTIONS`), so a repository never widens what is read
of it nor silences an alarm about itself.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from helix.core.schemas import FrozenSettings

MIB = 1024 * 1024


class DriftSettings(FrozenSettings):
    # distinct questions of the run log re-run (the most recent first)
    max_questions: int = Field(default=200, ge=1, le=100_000)
    # pinned questions read from a --question-file
    max_pinned: int = Field(default=1000, ge=1, le=100_000)
    # a pinned question at this severity or worse fails the run (exit 1); "ranking" also
    # fails on evidence that only moved in the ranking
    fail_on: Literal["changed", "moved", "ranking"] = "moved"
    # evidence items compared when an answer cited none (a clarifier, an answer without refs)
    lead_items: int = Field(default=3, ge=1, le=100)
    # leading evidence items whose order is compared for a ranking move
    rank_items: int = Field(default=5, ge=1, le=100)
    # token similarity (0..1) above which another span is the cited one moved or renamed
    follow_similarity: float = Field(default=0.75, ge=0, le=1)
    # spans compared as successors of a vanished one (the same file's, the same name's, the
    # answer's at HEAD), at most
    follow_candidates: int = Field(default=60, ge=1, le=10_000)
    # lines of one cited span's diff kept in the report
    max_diff_lines: int = Field(default=40, ge=1, le=10_000)
    # bytes of one earlier file version read from git (the cited lines' text then)
    max_blob_bytes: int = Field(default=4 * MIB, ge=1024, le=256 * MIB)
    git_timeout_s: float = Field(default=30.0, gt=0, le=3600)


class StaleDocsSettings(FrozenSettings):
    # commits of history read (newest first); older ones are not looked at, and the report
    # says the history was cut
    max_commits: int = Field(default=20_000, ge=1, le=10_000_000)
    max_log_bytes: int = Field(default=256 * MIB, ge=MIB, le=4096 * MIB)
    # versions of one file read back to find the commit that last touched a section, or the
    # commits that changed a definition
    max_versions: int = Field(default=200, ge=1, le=100_000)
    # definitions one section is aligned to, at most (the names it mentions, first first)
    max_definitions_per_section: int = Field(default=8, ge=1, le=1000)
    # levels of a class's bases (defined in the project) read for the members it inherits:
    # a method moved into a base is not removed
    inherit_depth: int = Field(default=3, ge=0, le=20)
    # calls followed from a function for the errors it raises through them: a raise moved
    # into a helper it calls is no error it stopped raising
    raise_depth: int = Field(default=3, ge=0, le=20)
    # commits listed per stale definition
    max_commits_listed: int = Field(default=5, ge=1, le=1000)
    # documentation files that describe history, not the code as it is: never stale
    skip: tuple[str, ...] = ("CHANGELOG*", "CHANGES*", "HISTORY*", "NEWS*", "RELEASE*",
                             "*changelog*", "*release-notes*", "*release_notes*", "LICENSE*",
                             "LICENCE*", "AUTHORS*", "CONTRIBUTORS*", "COPYING*", "NOTICE*",
                             "*upgrading*", "*migrat*", "*whatsnew*", "*whats-new*",
                             "*what-s-new*", "*archive*", "versions.*", "*-history.*",
                             "*_history.*", "*announcement*",
                             # records of work done (a session's transcript, a dev journal)
                             "*transcript*", "*journal*", "*worklog*", "*devlog*")
    # directories whose documents record the past (release notes, news, blog posts, an
    # earlier version's documentation): never stale (`helix.staledocs.archives`)
    history_dirs: tuple[str, ...] = ("release", "releases", "release-notes", "release_notes",
                                     "releasenotes", "changes", "changelog*", "news",
                                     "history", "whatsnew", "whats-new", "blog", "*archive*",
                                     "previous*version*", "old*version*", "versioned_docs",
                                     "versioned-docs",
                                     # design proposals: what was planned, not what is
                                     "sep", "seps", "pep", "peps", "rfc", "rfcs", "proposals",
                                     "adr", "adrs")
    # headings that are version numbers ("4.13.3 / 2015-08-02") making a file a release
    # history, whatever it is called (0: never)
    min_version_headings: int = Field(default=2, ge=0, le=1000)
    # a change of a definition's body counts against a section about that definition (its
    # heading is it); off: only what a document states about an interface counts
    body_changes: bool = False
    # a change of a parameter's or the return's type annotation counts (when the section
    # mentions the parameter); documents seldom state types
    annotation_changes: bool = False
    max_blob_bytes: int = Field(default=4 * MIB, ge=1024, le=256 * MIB)
    git_timeout_s: float = Field(default=120.0, gt=0, le=3600)
