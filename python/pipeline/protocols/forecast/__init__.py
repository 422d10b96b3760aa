"""forecast protocol."""
