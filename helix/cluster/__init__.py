"""Helix across many repositories and machines: repositories and parse shards as Ray tasks
(`runtime`, `index_job`, `fleet`), git sources checked out under a shared store root
(`checkout`), a repositories file (`repos_file`) and the per-repository summaries a question
across repositories is routed by (`summary`). Ray is imported only when a cluster is asked
for: the embedded default never needs it.
"""
