"""usdt, the command-line tool: lists the probes of binaries and processes (`usdt list`) and
traces them with bpftrace using the argument names and types they carry (`usdt trace`)."""
