"""steering protocol."""
