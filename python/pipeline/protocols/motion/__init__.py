"""motion protocol."""
