"""`usdt diff OLD NEW`: the probes removed, added and changed between two builds, each side a
binary (with --libraries, and the libraries it loads) or a saved `usdt list --json` manifest
(contract/manifest.py), compared as contract/differences.py says; as text or JSON. Exit 1 when a
change breaks a consumer (a probe removed, an argument changed), 0 otherwise.
"""

import argparse
import json
import sys


from . import listing
from .contract import differences, manifest
from .contract.differences import Change, Differences
from .errors import counted

JSON_VERSION = 1
BREAKING = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", metavar="OLD", help="the earlier build: an ELF file or a `usdt list --json` manifest")
    parser.add_argument("new", metavar="NEW", help="the later build, the same way")
    parser.add_argument("--libraries", action="store_true",
                        help="an ELF file's side holds the probes of the shared libraries it loads too")
    parser.add_argument("--json", action="store_true", help="print JSON (schema: docs/tracing.md)")


def run(args: argparse.Namespace) -> int:
    old_path, old = manifest.read_side(args.old, args.libraries)
    new_path, new = manifest.read_side(args.new, args.libraries)
    found = differences.compare(old, new)
    if args.json:
        json.dump(_json(old_path, new_path, found), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(_text(old_path, new_path, found))
    return BREAKING if found.breaking else 0


def _text(old_path: str, new_path: str, found: Differences) -> str:
    lines = [f"removed  {probe.signature}" for probe in found.removed]
    for changed in found.changed:
        lines.append(f"changed  {changed.new.signature}")
        # A size and a sign changed together read as one line.
        lines += [f"           {text}" for text in dict.fromkeys(_change_text(changed, change)
                                                            for change in changed.changes)]
    lines += [f"added    {probe.signature}" for probe in found.added]
    counts = f"{len(found.removed)} removed, {len(found.changed)} changed, {len(found.added)} added"
    if found.breaking:
        verdict = "consumers of the removed or changed probes break"
    elif found.changed or found.added:
        verdict = "compatible"
    else:
        verdict = "the same probes"
    lines.append(f"{old_path} -> {new_path}: {counts}: {verdict}")
    return "".join(line + "\n" for line in lines)


def _change_text(changed: differences.ChangedProbe, change: Change) -> str:
    if change.what == "arguments":
        return f"{counted(change.new, 'argument')}, was {change.old}"
    if change.what == "semaphore":
        return "semaphore added" if change.new else "semaphore removed"
    before, after = changed.old.arguments[change.argument], changed.new.arguments[change.argument]
    label = f"arg{change.argument} ({after.name})"
    if change.what in ("size", "signed"):
        return f"{label}: {differences.spec_size(after)} in the notes, was {differences.spec_size(before)}"
    return f"{label}: {change.what} {change.new}, was {change.old}"




def _json(old_path: str, new_path: str, found: Differences) -> dict:
    return {
        "version": JSON_VERSION,
        "old": old_path,
        "new": new_path,
        "breaking": found.breaking,
        "removed": [listing.probe_json(probe, None) for probe in found.removed],
        "added": [listing.probe_json(probe, None) for probe in found.added],
        "changed": [{"provider": changed.new.provider, "name": changed.new.name, "breaking": changed.breaking,
                     "old": listing.probe_json(changed.old, None), "new": listing.probe_json(changed.new, None),
                     "changes": [{"what": change.what, "argument": change.argument, "old": change.old,
                                  "new": change.new, "breaking": change.breaking} for change in changed.changes]}
                    for changed in found.changed],
    }
