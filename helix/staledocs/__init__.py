"""`helix stale-docs`: documentation sections whose code changed after them (see `run`)."""
