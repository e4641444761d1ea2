"""`helix drift`: what changed under recorded answers since they were given (see `run`)."""
