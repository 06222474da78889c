"""Probes as a contract: what `usdt verify` checks a binary against (its .d files, what its
tracers read) and what `usdt diff` compares between two builds."""
