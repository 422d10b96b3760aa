"""protocols layer."""
