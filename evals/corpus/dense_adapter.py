"""A query-side linear adapter for the dense channel, fitted on (text -> definitions) pairs.

The question's vector q becomes q (I + U V^T) (rank r; r = 0 is the identity) before the
search; the cards' vectors do not change, so an index needs no re-embedding. Fitting: for each
case, softmax over its candidate set (InfoNCE): its gold cards, BM25's top cards of its
repository (hard negatives) and a seeded sample of the repository's other cards (or all);
loss = -log of the probability mass on the gold cards, plus `l2` * ||U V^T||^2. Full-batch
Adam per repository in a fixed order,
torch on CPU with one thread and deterministic algorithms, a fixed seed: the same data gives
the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

TEMPERATURE = 0.05  # cosine scores / temperature: MiniLM's scores sit in a narrow band


@dataclass(frozen=True)
class FitConfig:
    rank: int
    l2: float
    steps: int  # passes over the training repositories
    lr: float = 1e-3
    seed: int = 31
    others: int = -1  # sampled other cards per case (< 0: all of the repository's)


@dataclass(frozen=True)
class RepoSet:
    """One repository's training material: card vectors (n, d), query vectors (m, d) and gold
    rows (m, g) padded with -1."""

    cards: np.ndarray
    queries: np.ndarray
    gold: np.ndarray
    hard: np.ndarray | None = None  # (m, h) rows of BM25's top cards per case


def candidates(data: RepoSet, others: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows (m, K), is_gold (m, K)) of each case's softmax set: its gold cards, its hard
    negatives and `others` of the repository's other cards drawn with `seed`; rows padded
    with -1. `others` < 0: every card of the repository (the set's full softmax)."""
    n = len(data.cards)
    rng = np.random.default_rng(seed)
    sets: list[list[int]] = []
    for i, gold in enumerate(data.gold):
        rows = {int(r) for r in gold if r >= 0}
        if others < 0:
            rows = set(range(n))
        else:
            if data.hard is not None:
                rows |= {int(r) for r in data.hard[i]}
            rows |= {int(r) for r in rng.choice(n, size=min(others, n), replace=False)}
        sets.append(sorted(rows))
    width = max(len(r) for r in sets)
    out = np.full((len(sets), width), -1, dtype=np.int64)
    gold_mask = np.zeros((len(sets), width), dtype=bool)
    for i, chosen in enumerate(sets):
        out[i, :len(chosen)] = chosen
        wanted = {int(r) for r in data.gold[i] if r >= 0}
        gold_mask[i, :len(chosen)] = [r in wanted for r in chosen]
    return out, gold_mask


def adapter_matrix(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The d x d matrix I + U V^T (float32)."""
    d = u.shape[0]
    return (np.eye(d, dtype=np.float32) + u.astype(np.float32) @ v.astype(np.float32).T
            ).astype(np.float32)


def _repo_loss(torch: Any, u: Any, v: Any, data: Mapping[str, Any]) -> Any:
    """Mean -log(gold mass) of the repository's cases over their candidate sets;
    q (I + U V^T) c^T is computed as the fixed q c^T plus (q U)(c V)^T (r/d of the cost)."""
    qu = data["queries"] @ u
    norms = (data["queries"] + qu @ v.T).norm(dim=1, keepdim=True).clamp_min(1e-6)
    cv = (data["cards"] @ v)[data["rows"]]  # (m, K, r)
    raw = data["base"] + (qu.unsqueeze(1) * cv).sum(dim=2)
    logits = (raw / norms / TEMPERATURE).masked_fill(~data["valid"], float("-inf"))
    log_p = torch.log_softmax(logits, dim=1)
    masked = log_p.masked_fill(~data["gold"], float("-inf"))
    return -torch.logsumexp(masked, dim=1).mean()


def _tensors(torch: Any, sets: Sequence[RepoSet], others: int, seed: int
             ) -> list[dict[str, Any]]:
    out = []
    for number, s in enumerate(sets):
        rows, gold = candidates(s, others, seed + number)
        queries = s.queries.astype(np.float32)
        cards = s.cards.astype(np.float32)
        safe = np.maximum(rows, 0)
        base = np.einsum("md,mkd->mk", queries, cards[safe])
        out.append({"queries": torch.from_numpy(queries), "cards": torch.from_numpy(cards),
                    "rows": torch.from_numpy(safe), "valid": torch.from_numpy(rows >= 0),
                    "gold": torch.from_numpy(gold), "base": torch.from_numpy(base)})
    return out


def fit(sets: Sequence[RepoSet], config: FitConfig, at: Sequence[int] = ()
        ) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """{step: (U, V)}, each (d, rank), after `config.steps` full-batch steps and after each
    step count in `at`: the adapter I + U V^T fitted on `sets` in their order."""
    import torch

    d = int(sets[0].cards.shape[1])
    if config.rank <= 0:
        zero = np.zeros((d, 0), np.float32)
        return {step: (zero, zero) for step in {*at, config.steps}}
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    gen = torch.Generator().manual_seed(config.seed)
    u = torch.nn.Parameter(torch.randn(d, config.rank, generator=gen) * 0.01)
    v = torch.nn.Parameter(torch.zeros(d, config.rank))
    opt = torch.optim.Adam([u, v], lr=config.lr)
    data = _tensors(torch, sets, config.others, config.seed)
    total = sum(len(s.queries) for s in sets)
    weights = [len(s.queries) / total for s in sets]
    out: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for step in range(1, config.steps + 1):
        opt.zero_grad()
        loss = config.l2 * ((u.T @ u) * (v.T @ v)).sum()  # ||U V^T||_F^2
        for w, repo in zip(weights, data, strict=True):
            loss = loss + w * _repo_loss(torch, u, v, repo)
        loss.backward()
        opt.step()
        if step in at or step == config.steps:
            out[step] = (u.detach().numpy().astype(np.float32).copy(),
                         v.detach().numpy().astype(np.float32).copy())
    return out


def apply(queries: np.ndarray, matrix: np.ndarray | None) -> np.ndarray:
    """Query vectors through the adapter, L2-normalised again (identity when None)."""
    if matrix is None:
        return queries
    out = np.asarray(queries, dtype=np.float32) @ matrix
    norms = np.linalg.norm(out, axis=-1, keepdims=True)
    return (out / np.maximum(norms, 1e-6)).astype(np.float32)
