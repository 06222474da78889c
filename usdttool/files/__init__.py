"""Reading ELF files and running processes: their probes (stapsdt notes and .note.usdt records),
the shared libraries they load, what a process maps."""
