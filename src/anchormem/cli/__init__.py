"""The command-line interface (``anchormem``)."""
