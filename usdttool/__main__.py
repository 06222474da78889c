"""`python3 -m usdttool ARGS...`: the usdt command without its launcher, as usdt_add_provider's
VERIFY step runs it with the generator's interpreter, from the generator's root."""

import sys

from .main import main

sys.exit(main())
