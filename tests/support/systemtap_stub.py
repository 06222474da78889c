"""SystemTap on a machine without the running kernel's build tree: a stub tree that lets
`stap -r TREE` go as far as pass 3 (translation to C), which is where the checks on
`process(...).mark(...)` probes and their `$argN` happen. Pass 4 builds a kernel module,
which needs the real tree (and a kernel that loads modules)."""

import platform
from pathlib import Path


def stub_kernel_tree(directory: Path) -> Path:
    """The least of a kernel build tree that lets stap translate (not build) process probes:
    it checks for the tree and the kernel's uprobes support, then reads only the program."""
    (directory / "include/config").mkdir(parents=True)
    (directory / ".config").write_text("CONFIG_UPROBES=y\nCONFIG_ARCH_SUPPORTS_UPROBES=y\nCONFIG_TRACEPOINTS=y\n")
    (directory / "include/config/kernel.release").write_text(platform.release() + "\n")
    (directory / "Module.symvers").write_text("")
    return directory
