"""Talking to bpftrace: the program usdt trace writes, running it, reading what it prints, and
every difference between its releases (releases.py)."""
