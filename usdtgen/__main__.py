"""Entry point for `python3 -m usdtgen`."""

import sys

from .cli import main

sys.exit(main())
