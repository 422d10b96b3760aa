"""A declared experiment (a suite file) run end to end: ``python -m pipeline.paper`` (docs/paper.md)."""
