"""The floor every Helix package stands on: schemas, hashing, errors, config, ports."""
