"""The small retry repository several tests ask about: its source and its documentation."""

RETRY_PY = '''"""Retry helpers."""

MAX_ATTEMPTS = 5


def decide_retry(attempt, error):
    """The retry policy: retry transient errors until MAX_ATTEMPTS."""
    if attempt >= MAX_ATTEMPTS:
        return False
    return bool(getattr(error, "transient", False))


def backoff_seconds(attempt):
    return min(30, 2 ** attempt)
'''
RETRIES_MD = """# Retries

The retry policy is decided by `decide_retry` in `src/retry.py`.
Backoff grows exponentially (`backoff_seconds`).
"""
