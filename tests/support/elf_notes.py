"""Reads an ELF module's stapsdt notes, usdt description notes, section headers and symbols
with binutils' readelf."""

import re
import subprocess
from dataclasses import dataclass
from typing import Dict, List, Tuple

# glibc's providers and files: a glibc built with sys/sdt.h (Debian unstable's 2.43; not Debian
# 12's or 13's) has probes of its own, which gdb, `usdt list PID` and the like show beside a
# program's. Tests that list a process's probes leave these aside.
GLIBC_PROVIDERS = ("libc", "rtld")
GLIBC_FILE = re.compile(r"(^|/)(libc\.so\.6|ld-linux[^/]*\.so\.\d+)$")


@dataclass(frozen=True)
class Note:
    provider: str
    name: str
    location: int
    base: int
    semaphore: int
    arguments: Tuple[str, ...]   # `[-]SIZE@OPERAND`, as written in the note

    @property
    def probe(self) -> str:
        return f"{self.provider}:{self.name}"


@dataclass(frozen=True)
class Section:
    name: str
    address: int
    size: int

    def contains(self, address: int) -> bool:
        return self.address <= address < self.address + self.size


@dataclass(frozen=True)
class Description:
    """A `.note.usdt` record: what the .d file declared for a probe."""
    provider: str
    name: str
    source_name: str
    arguments: Tuple[Tuple[str, str, str], ...]   # (name, declared type, kind) each

    @property
    def probe(self) -> str:
        return f"{self.provider}:{self.name}"


_NOTE_RE = re.compile(
    r"NT_STAPSDT \(SystemTap probe descriptors\)\s+"
    r"Provider: (?P<provider>\S+)\s+Name: (?P<name>\S+)\s+"
    r"Location: (?P<location>0x[0-9a-f]+), Base: (?P<base>0x[0-9a-f]+), "
    r"Semaphore: (?P<semaphore>0x[0-9a-f]+)\s+Arguments:(?P<arguments>[^\n]*)")
# An operand may contain spaces (aarch64's `[sp, 40]`): split before each `[-]N@` (`8f@`: a
# floating-point value, as systemtap's sys/sdt.h records one).
_ARGUMENT_RE = re.compile(r"-?\d+f?@.*?(?=\s+-?\d+f?@|$)")
_SECTION_RE = re.compile(
    r"^\s*\[\s*(?P<number>\d+)\]\s+(?P<name>\S+)\s+\S+\s+(?P<address>[0-9a-f]+)\s+"
    r"[0-9a-f]+\s+(?P<size>[0-9a-f]+)\s", re.MULTILINE)
_SYMBOL_RE = re.compile(
    r"^\s*\d+:\s+(?P<value>[0-9a-f]+)\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+(?P<name>\S+)$", re.MULTILINE)


def _readelf(*arguments: str) -> str:
    return subprocess.run(["readelf", "--wide", *arguments], check=True,
                          capture_output=True, text=True).stdout


def notes(path: str) -> List[Note]:
    output = _readelf("-n", path)
    found = [
        Note(match["provider"], match["name"], int(match["location"], 16), int(match["base"], 16),
             int(match["semaphore"], 16), tuple(_ARGUMENT_RE.findall(match["arguments"].strip())))
        for match in _NOTE_RE.finditer(output)]
    # A note this parser skipped would make every later check meaningless.
    if len(found) != output.count("NT_STAPSDT"):
        raise AssertionError(f"could not parse every stapsdt note of {path}:\n{output}")
    return found


# readelf does not know the owner "usdt" and prints the record's bytes in hex.
_DESCRIPTION_RE = re.compile(r"^\s+usdt\s+0x[0-9a-f]+\s[^\n]*?\s+description data: (?P<data>[0-9a-f ]*)$", re.MULTILINE)


def descriptions(path: str) -> List[Description]:
    """The `.note.usdt` records, one per probe site, in section order."""
    output = _readelf("-n", path)
    found = []
    for match in _DESCRIPTION_RE.finditer(output):
        if not match["data"].strip():
            raise AssertionError(f"empty .note.usdt record in {path}")
        strings = bytes.fromhex(match["data"]).decode().split("\0")
        if strings[-1] != "" or (len(strings) - 4) % 3:
            raise AssertionError(f"malformed .note.usdt record in {path}: {strings}")
        provider, name, source_name, *arguments = strings[:-1]
        found.append(Description(provider, name, source_name,
                                 tuple(tuple(arguments[i:i + 3]) for i in range(0, len(arguments), 3))))
    if len(found) != len(re.findall(r"^\s+usdt\s+0x", output, re.MULTILINE)):
        raise AssertionError(f"could not parse every usdt note of {path}:\n{output}")
    return found


def sections(path: str) -> Dict[str, Section]:
    return {match["name"]: Section(match["name"], int(match["address"], 16), int(match["size"], 16))
            for match in _SECTION_RE.finditer(_readelf("-S", path)) if match["number"] != "0"}


def symbols(path: str) -> List[Tuple[str, int]]:
    """Every (name, value) of .dynsym and .symtab, duplicates included."""
    return [(match["name"], int(match["value"], 16))
            for match in _SYMBOL_RE.finditer(_readelf("-s", path))]
