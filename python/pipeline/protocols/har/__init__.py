"""har protocol."""
