"""stats layer."""
