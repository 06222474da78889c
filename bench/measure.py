"""The measurements behind docs/PERFORMANCE.md: each function runs the programs bench/
builds (or the generator and compilers) and returns plain numbers; targets.py judges them
and report.py prints them; usdt trace's start-up is start_up.py's. Site names are
`<kind>_<source>_<probe>`, as bench/sites.h defines them.
"""

import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence

REPOSITORY = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPOSITORY / "tests" / "support"))
import bpftrace_attach  # noqa: E402  (the tests' way of attaching bpftrace and waiting until ready)


@dataclass(frozen=True)
class Site:
    kind: str    # none, sdt, sdt_guarded, macro, function, guarded, guarded_function
    source: str  # reg, mem, str, item, costly
    probe: str   # a0, a2, a6, a12, s1, item

    @staticmethod
    def parse(name: str) -> "Site":
        *kind, source, probe = name.split("_")
        return Site("_".join(kind), source, probe)


class NotMeasured(Exception):
    """A section that could not run here; its message says why."""


def _run(command: Sequence[str], **kwargs) -> str:
    return subprocess.run(command, check=True, stdout=subprocess.PIPE, encoding="utf-8", **kwargs).stdout


# --- Disabled sites: instructions (callgrind) and time (Google Benchmark) ---------------

def instructions_per_execution(disabled_sites: Path, iterations: int = 16384) -> Dict[Site, float]:
    """Instructions per loop iteration of every run_<site> loop: callgrind counts each loop
    run `iterations` and 2 * `iterations` times; the difference excludes the call itself."""
    names = _run([str(disabled_sites), "--list"]).split()
    with tempfile.TemporaryDirectory() as directory:
        output = Path(directory) / "callgrind.out"
        _run(["valgrind", "--tool=callgrind", "-q", "--collect-atstart=no", "--toggle-collect=run_*",
              *[f"--dump-after=run_{name}" for name in names], f"--callgrind-out-file={output}",
              str(disabled_sites), "--count", str(iterations)])
        dumps = sorted(Path(directory).glob("callgrind.out.*"), key=lambda path: int(path.suffix[1:]))
        counts: Dict[str, List[int]] = {}
        for dump in dumps:
            text = dump.read_text()
            function = re.search(r"^desc: Trigger: --dump-after=run_(\S+)$", text, re.M).group(1)
            counts.setdefault(function, []).append(int(re.search(r"^summary: (\d+)$", text, re.M).group(1)))
    return {Site.parse(name): (counts[name][1] - counts[name][0]) / iterations for name in names}


def _benchmark(program: Path, arguments: Sequence[str]) -> List[dict]:
    """Runs a Google Benchmark program with `arguments`; returns its JSON entries."""
    with tempfile.TemporaryDirectory() as directory:
        output = Path(directory) / "benchmark.json"
        subprocess.run([str(program), f"--benchmark_out={output}", "--benchmark_out_format=json",
                        "--benchmark_enable_random_interleaving=true", *arguments],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return json.loads(output.read_text())["benchmarks"]


def _site(entry: dict) -> Site:
    return Site.parse(entry["run_name"].split("/", 1)[1])


def _nanoseconds_per_site(entry: dict) -> float:
    """CPU time, not wall-clock time, so that other processes running on the machine do not
    count (a hit's trap and BPF program do: the kernel runs them on the process's behalf)."""
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
    return entry["cpu_time"] * scale[entry["time_unit"]] / entry["sites_per_iteration"]


def nanoseconds_per_execution(disabled_sites: Path) -> Dict[Site, float]:
    """Median time per loop iteration of every run_<site> loop, 3 repetitions interleaved
    at random."""
    entries = _benchmark(disabled_sites, ["--benchmark_repetitions=3", "--benchmark_min_time=0.05"])
    return {_site(entry): _nanoseconds_per_site(entry) for entry in entries if entry.get("aggregate_name") == "median"}


# --- Enabled sites: time per hit with bpftrace attached ----------------------------------

@dataclass
class Hits:
    rounds: List[Dict[Site, float]]  # per round: time per hit
    counted: Dict[str, int]          # "provider:probe" -> hits bpftrace counted
    fired: Dict[str, int]            # "provider:probe" -> hits of the timed runs (a lower bound)

    def median(self, site: Site) -> float:
        return statistics.median(times[site] for times in self.rounds)

    def ratios(self, site: Site, reference: Site) -> List[float]:
        """Per round, the time of `site` over that of `reference`."""
        return [times[site] / times[reference] for times in self.rounds]


def _provider(site: Site) -> str:
    return "bench_sdt" if site.kind.startswith("sdt") else "bench"


def nanoseconds_per_hit(enabled_hits: Path, rounds: int = 21) -> Hits:
    """Attaches bpftrace (counting hits) to every probe of enabled_hits, then runs it `rounds`
    times, each timing every site once in a random order: a round's sites run within a second
    or two of each other, so that comparing them within a round cancels slower drifts in the
    machine's load."""
    if os.geteuid() != 0:
        raise NotMeasured("not measured: attaching bpftrace needs root (run bench/run.sh as root)")
    if not shutil.which("bpftrace"):
        raise NotMeasured("not measured: bpftrace is not installed")
    # A counter per probe rather than one map keyed by `probe`: a string key would add hashing
    # a long string to every hit.
    probes = sorted({(note.provider, note.name) for note in notes(enabled_hits)})
    script = "".join(f"usdt:{enabled_hits}:{provider}:{name} {{ @{provider}__{name} = count(); }}\n"
                     for provider, name in probes) + bpftrace_attach.BEGIN_READY
    output, results = bpftrace_attach.trace(
        script, lambda: [_benchmark(enabled_hits, ["--benchmark_min_time=0.05"]) for _ in range(rounds)],
        expected_hits=0, timeout=60)
    counted = {f"{provider}:{probe}": int(count)
               for provider, probe, count in re.findall(r"^@(\w+?)__(\w+): (\d+)$", output, re.M)}
    fired: Dict[str, int] = {}
    for entry in (entry for entries in results for entry in entries):
        key = f"{_provider(_site(entry))}:{_site(entry).probe}"
        fired[key] = fired.get(key, 0) + int(entry["iterations"] * entry["sites_per_iteration"])
    return Hits([{_site(entry): _nanoseconds_per_site(entry) for entry in entries} for entries in results],
                counted, fired)


# --- Bytes: code per site, note per probe ------------------------------------------------

@dataclass(frozen=True)
class Note:
    provider: str
    name: str
    arguments: str
    location: int
    size: int  # bytes in .note.stapsdt: header, "stapsdt\0", descriptor, padding


def _align4(value: int) -> int:
    return (value + 3) & ~3


def notes(binary: Path) -> List[Note]:
    text = _run(["readelf", "-n", "--wide", str(binary)])
    pattern = re.compile(r"stapsdt\s+0x([0-9a-f]+)\s+NT_STAPSDT.*?Provider: (\S+)\s+Name: (\S+)\s+"
                         r"Location: 0x([0-9a-f]+).*?Arguments: ?([^\n]*)", re.S)
    return [Note(provider, name, arguments.strip(), int(location, 16), 12 + 8 + _align4(int(size, 16)))
            for size, provider, name, location, arguments in pattern.findall(text)]


def _owner(symbol: str, prefix: str) -> Optional[str]:
    """The function of ours a code symbol belongs to: itself, its `.cold` part, or a lambda
    defined in it (`_ZZ<length><name>E...`)."""
    if symbol.startswith(prefix):
        return symbol.split(".", 1)[0]
    local = re.match(r"_ZZ(\d+)(\w+)", symbol)
    if local and local.group(2)[:int(local.group(1))].startswith(prefix):
        return local.group(2)[:int(local.group(1))]
    return None


@dataclass
class Code:
    bytes: Dict[str, int]          # function -> bytes of code, its cold parts and lambdas included
    notes: Dict[str, List[Note]]   # function -> the notes of its sites


def code_by_function(binary: Path, prefix: str) -> Code:
    """Code bytes and notes of each function named `prefix...` (nm sizes, readelf notes)."""
    ranges = []
    sizes: Dict[str, int] = {}
    for line in _run(["nm", "-S", "--defined-only", str(binary)]).splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in "tTwW":
            owner = _owner(fields[3], prefix)
            if owner:
                start, size = int(fields[0], 16), int(fields[1], 16)
                sizes[owner] = sizes.get(owner, 0) + size
                ranges.append((start, start + size, owner))
    by_function: Dict[str, List[Note]] = {}
    for note in notes(binary):
        owner = next((owner for start, end, owner in ranges if start <= note.location < end), None)
        if owner:
            by_function.setdefault(owner, []).append(note)
    return Code(sizes, by_function)


def section_size(binary: Path, name: str) -> int:
    for line in _run(["readelf", "-S", "--wide", str(binary)]).splitlines():
        fields = line.replace("[", " ").replace("]", " ").split()
        if len(fields) > 5 and fields[1] == name:
            return int(fields[5], 16)
    return 0


# --- Generator and compile time ----------------------------------------------------------

_ARGUMENT_TYPES = ["uint64_t", "int32_t", "const char *", "uint8_t", "int64_t", "bool"]


def provider_file(probes: int) -> str:
    """A .d file of `probes` probes, with 0 to 4 arguments of mixed types."""
    lines = ["provider big {"]
    for index in range(probes):
        arguments = ", ".join(f"{_ARGUMENT_TYPES[(index + k) % len(_ARGUMENT_TYPES)]} a{k}" for k in range(index % 5))
        lines.append(f"    probe p{index}({arguments});")
    return "\n".join(lines + ["};", ""])


def _cpu_seconds(command: Sequence[str], **kwargs) -> float:
    """User and system CPU seconds `command` and its children take: CPU time, so that other
    processes running on the machine do not count."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, **kwargs)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def _generate(python: str, directory: Path, probes: int, generator: Path = REPOSITORY, header: str = "big.h") -> float:
    """Generates `header` from a `probes`-probe big.d with the usdtgen of the source tree
    `generator`; returns the CPU seconds it took."""
    (directory / "big.d").write_text(provider_file(probes))
    command = [python, "-m", "usdtgen", str(directory / "big.d"), "--header", str(directory / header)]
    return _cpu_seconds(command, env={**os.environ, "PYTHONPATH": str(generator)})


def generator_seconds(python: str, probes: int = 10000, runs: int = 5) -> float:
    with tempfile.TemporaryDirectory() as directory:
        return statistics.median(_generate(python, Path(directory), probes) for _ in range(runs))


# The earlier usdt whose header the compile times are compared with: the last commit before the
# typed C++ API grew (issue 33 measured its C++ cost at about half of what it had become).
EARLIER_RELEASE = "37a00c4"


def earlier_generator(directory: Path) -> Optional[Path]:
    """EARLIER_RELEASE's generator, templates and runtime, extracted from this repository's
    history into `directory`; None where the history is not there (an exported tree)."""
    archive = subprocess.run(["git", "-C", str(REPOSITORY), "archive", EARLIER_RELEASE, "usdtgen", "templates", "runtime"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if archive.returncode != 0:
        return None
    subprocess.run(["tar", "-x", "-C", str(directory)], input=archive.stdout, check=True)
    return directory


def _write_empty_bodies(header: Path, output: Path, probes: int) -> None:
    """`header` with each C++ API function's body left empty ("empty bodies"): what declaring
    the functions costs, without their sites."""
    text, emptied = re.subn(r"(\n_USDT_API_FUNCTION void \w+\([^\n]*\) noexcept \{\n).*?\n\}\n", r"\1}\n",
                            header.read_text(), flags=re.DOTALL)
    if emptied != probes:
        raise RuntimeError(f"{header}: {emptied} C++ API functions emptied, expected {probes}: the header's shape changed")
    output.write_text(text)


def compile_milliseconds(compilers: Dict[str, List[str]], python: str, probes: int = 1000, runs: int = 7,
                         earlier_generator: Optional[Path] = None) -> Dict[str, Dict[str, float]]:
    """Median CPU milliseconds to compile bench/compile_cost.c with each compiler command
    (`["g++", "-x", "c++"]`...): "alone", including "usdt.h", including a generated
    `probes`-probe "header", and that header with USDT_NO_CXX_API ("macros only"); with
    `earlier_generator` (the source tree of an earlier usdt), also the header it generates from
    the same provider ("earlier header"); and the header with each C++ API function's body left
    empty ("empty bodies": in C++, what the functions' declarations cost). "usdt.h" is the runtime a generated header embeds for
    the language (usdt_site.h, which includes usdt.h; in C++ usdt_cxx_api.h, which includes the
    rest), from runtime/include. Variants alternate, so that drift in the machine's load hits all."""
    include = f"-I{REPOSITORY / 'runtime' / 'include'}"
    variants = {"alone": [], "usdt.h": [include, "-DPROBES_HEADER=<usdt/usdt_site.h>"],
                "header": ['-DPROBES_HEADER="big.h"'], "macros only": ['-DPROBES_HEADER="big.h"', "-DUSDT_NO_CXX_API"]}
    if earlier_generator:
        variants["earlier header"] = ['-DPROBES_HEADER="earlier.h"']
    variants["empty bodies"] = ['-DPROBES_HEADER="empty_bodies.h"']
    with tempfile.TemporaryDirectory() as directory:
        _generate(python, Path(directory), probes)
        _write_empty_bodies(Path(directory) / "big.h", Path(directory) / "empty_bodies.h", probes)
        if earlier_generator:
            _generate(python, Path(directory), probes, earlier_generator, "earlier.h")
        times: Dict[str, Dict[str, List[float]]] = {name: {variant: [] for variant in variants} for name in compilers}
        for _ in range(runs):
            for name, command in compilers.items():
                for variant, options in variants.items():
                    if variant == "usdt.h" and "c++" in command:
                        options = [include, "-DPROBES_HEADER=<usdt/usdt_cxx_api.h>"]
                    arguments = [*command, "-O2", "-c", "-o", os.devnull, f"-I{directory}", *options,
                                 str(REPOSITORY / "bench" / "compile_cost.c")]
                    times[name][variant].append(1000 * _cpu_seconds(arguments))
    return {name: {variant: statistics.median(values) for variant, values in measured.items()}
            for name, measured in times.items()}


# --- The machine -------------------------------------------------------------------------

def _first_line(command: Sequence[str]) -> str:
    try:
        return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              encoding="utf-8").stdout.splitlines()[0].strip()
    except (OSError, IndexError):
        return "not installed"


def _package_version(package: str) -> str:
    return _first_line(["dpkg-query", "-W", "-f=${Version}", package]) or "unknown"


def machine(compilers: Sequence[str], python: str) -> Dict[str, str]:
    cpuinfo = Path("/proc/cpuinfo").read_text()
    model = re.search(r"^model name\s*:\s*(.*)$", cpuinfo, re.M)
    virtual = re.search(r"^flags\s*:.*\bhypervisor\b", cpuinfo, re.M)
    os_release = Path("/etc/os-release").read_text() if Path("/etc/os-release").exists() else ""
    distribution = re.search(r'^PRETTY_NAME="?([^"\n]*)', os_release, re.M)
    return {
        "CPU": f"{model.group(1) if model else platform.machine()}, {os.cpu_count()} logical CPUs"
               + (" (virtual machine)" if virtual else ""),
        "Load average at start": " ".join(f"{load:.2f}" for load in os.getloadavg()),
        "System": f"{distribution.group(1) if distribution else platform.system()}, Linux {platform.release()}",
        **{f"`{compiler}`": _first_line([compiler, "--version"]) for compiler in compilers},
        "sys/sdt.h": f"systemtap-sdt-dev {_package_version('systemtap-sdt-dev')}",
        "Google Benchmark": f"libbenchmark-dev {_package_version('libbenchmark-dev')}",
        "valgrind": _first_line(["valgrind", "--version"]),
        "bpftrace": _first_line(["bpftrace", "--version"]),
        "Python (generator)": _first_line([python, "--version"]),
    }
