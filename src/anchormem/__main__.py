"""``python -m anchormem``: the same as the ``anchormem`` command."""

from __future__ import annotations

import sys

from anchormem.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
