"""Service definitions, grouped by business domain."""
