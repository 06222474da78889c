"""What changed between two builds' probes, as `usdt diff` reports it: each probe removed,
added or changed, keyed by provider and name over all the modules of each side (a probe in
several modules of one side compares by the first). A change breaks a consumer when a probe is
removed or an argument changes (its count, size, signedness, kind, or its name or declared type
where both sides' .note.usdt records carry them); a semaphore added or removed does not.
"""

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from usdtgen import notes

from ..files import elf, probe_notes


@dataclass(frozen=True)
class Change:
    what: str                 # "arguments" (their count), "size", "signed", "kind", "name", "type", "semaphore"
    argument: Optional[int]   # the argument's index; None for the probe's count or semaphore
    old: object
    new: object

    @property
    def breaking(self) -> bool:
        return self.what != "semaphore"


@dataclass(frozen=True)
class ChangedProbe:
    old: probe_notes.Probe
    new: probe_notes.Probe
    changes: Tuple[Change, ...]

    @property
    def breaking(self) -> bool:
        return any(change.breaking for change in self.changes)


@dataclass(frozen=True)
class Differences:
    removed: Tuple[probe_notes.Probe, ...]
    added: Tuple[probe_notes.Probe, ...]
    changed: Tuple[ChangedProbe, ...]

    @property
    def breaking(self) -> bool:
        return bool(self.removed) or any(changed.breaking for changed in self.changed)


def compare(old: Sequence[elf.Module], new: Sequence[elf.Module]) -> Differences:
    old_probes, new_probes = _probes(old), _probes(new)
    removed = tuple(probe for key, probe in old_probes.items() if key not in new_probes)
    added = tuple(probe for key, probe in new_probes.items() if key not in old_probes)
    changed = []
    for key, old_probe in old_probes.items():
        if key in new_probes:
            changes = probe_changes(old_probe, new_probes[key])
            if changes:
                changed.append(ChangedProbe(old_probe, new_probes[key], changes))
    return Differences(removed, added, tuple(changed))


def _probes(modules: Sequence[elf.Module]) -> Dict[Tuple[str, str], probe_notes.Probe]:
    probes: Dict[Tuple[str, str], probe_notes.Probe] = {}
    for module in modules:
        for probe in module.probes:
            probes.setdefault((probe.provider, probe.name), probe)
    return dict(sorted(probes.items()))


def probe_changes(old: probe_notes.Probe, new: probe_notes.Probe) -> Tuple[Change, ...]:
    changes: List[Change] = []
    if len(old.arguments) != len(new.arguments):
        changes.append(Change("arguments", None, len(old.arguments), len(new.arguments)))
    # Names and declared types only where both sides have them: from the stapsdt notes alone
    # they are argN and the size's <stdint.h> type, which say nothing new.
    declared = old.source_name is not None and new.source_name is not None
    for before, after in zip(old.arguments, new.arguments):
        compared = [("size", before.size, after.size), ("signed", before.signed, after.signed)]
        if declared:
            compared += [("kind", before.kind.note_spelling, after.kind.note_spelling),
                         ("name", before.name, after.name), ("type", before.type_name, after.type_name)]
        changes += [Change(what, before.index, was, now) for what, was, now in compared if was != now]
    if bool(old.semaphore) != bool(new.semaphore):
        changes.append(Change("semaphore", None, bool(old.semaphore), bool(new.semaphore)))
    return tuple(changes)


def spec_size(argument) -> str:
    """`-4 (int32_t)`: an argument's size and sign as the notes write them, and their type."""
    return f"{notes.spec_size(argument.size, argument.signed)} ({notes.value_type_name(argument.size, argument.signed)})"
