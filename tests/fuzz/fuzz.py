#!/usr/bin/env python3
"""Fuzzes the generator: mutated provider files, grammar-written ones and random bytes go
through usdtgen, and every result is judged by harness.problem(); a sample of the distinct
outputs is compiled as C and C++. Seeded: the same seed and corpus make the same inputs.

    tests/fuzz/fuzz.py                        # the CI run: seed 1, about 40 s at most
    tests/fuzz/fuzz.py --long                 # 30,000 inputs, 600 outputs compiled, clang too
    tests/fuzz/fuzz.py --seed 7 --inputs 5000 --compile 100 --budget 300 --failures /tmp/found

Each failing input is written to --failures (default: a new temporary directory) with
the problem, so `python3 -m usdtgen FILE` replays it. Exit status 1 when any input failed.
"""

import argparse
import random
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
import mutate

# Inputs, outputs compiled (with each compiler) and seconds, at most.
CI_INPUTS, CI_COMPILED, CI_BUDGET = 3000, 40, 40.0
LONG_INPUTS, LONG_COMPILED, LONG_BUDGET = 30000, 600, 1800.0
# Inputs handed to the generator's process at a time.
BATCH = 100


@dataclass
class Report:
    inputs: int = 0
    kinds: dict = field(default_factory=dict)
    compiled: int = 0
    failures: List[Tuple[bytes, str]] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> str:
        kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(self.kinds.items()))
        return (f"{self.inputs} inputs ({kinds}); {self.compiled} distinct outputs compiled; "
                f"{len(self.failures)} failures; {self.seconds:.1f} s")


def run(seed: int, inputs: int, compiled: int, budget: float, compilers=harness.DEFAULT_COMPILERS,
        workers: int = 2, timeout: float = 10.0) -> Report:
    """Up to `inputs` inputs, then up to `compiled` distinct outputs compiled, within about
    `budget` seconds: generation stops at 60% of it, compiling at all of it, so a loaded
    machine runs fewer inputs instead of running long. The inputs are those of the seed, in
    order, however many run."""
    rng = random.Random(seed)
    maker = mutate.InputMaker(rng, mutate.seed_files())
    report = Report()
    started = time.monotonic()
    generated = {}
    with tempfile.TemporaryDirectory(prefix="usdt-fuzz-") as scratch:
        scratch = Path(scratch)
        (scratch / "input").mkdir()
        with harness.GeneratorProcess(scratch / "input", timeout=timeout) as generator:
            while report.inputs < inputs and time.monotonic() - started < 0.6 * budget:
                batch = [(maker.next_input(), rng.random() < 0.8, harness.INPUT_NAME)
                         for _ in range(min(BATCH, inputs - report.inputs))]
                for (data, _, _), outcome in zip(batch, generator.run_many(batch)):
                    report.inputs += 1
                    report.kinds[outcome.kind] = report.kinds.get(outcome.kind, 0) + 1
                    found = harness.problem(outcome)
                    if found:
                        report.failures.append((data, found))
                    elif outcome.kind == "generated":
                        generated.setdefault(harness.output_key(outcome), (data, outcome))
        chosen = rng.sample(list(generated.values()), min(compiled, len(generated)))

        def compile_case(index):
            if time.monotonic() - started > budget:
                return None
            data, outcome = chosen[index]
            directory = scratch / "compiled" / str(index)
            harness.write_case(directory, outcome)
            return data, [harness.compile_case(directory, compiler) for compiler in compilers]

        with ThreadPoolExecutor(max_workers=workers) as pool:
            for result in pool.map(compile_case, range(len(chosen))):
                if result is None:
                    continue
                report.compiled += 1
                data, problems = result
                report.failures += [(data, f"generated code does not compile: {found}") for found in problems if found]
    report.seconds = time.monotonic() - started
    return report


def save_failures(report: Report, directory: Path) -> None:
    """Writes failure-NNNN.d (the input) and failure-NNNN.txt (the problem), replacing those
    of an earlier run."""
    directory.mkdir(parents=True, exist_ok=True)
    for old in [*directory.glob("failure-*.d"), *directory.glob("failure-*.txt")]:
        old.unlink()
    for index, (data, found) in enumerate(report.failures):
        (directory / f"failure-{index:04d}.d").write_bytes(data)
        (directory / f"failure-{index:04d}.txt").write_text(found + "\n")


def main() -> int:
    cli = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cli.add_argument("--seed", type=int, default=1)
    cli.add_argument("--long", action="store_true", help="a longer local run, with clang as well")
    cli.add_argument("--inputs", type=int, help="inputs to generate from")
    cli.add_argument("--compile", type=int, help="distinct outputs to compile with each compiler")
    cli.add_argument("--budget", type=float, help="seconds the run may take, about")
    cli.add_argument("--failures", type=Path, help="where to write failing inputs")
    options = cli.parse_args()
    inputs = options.inputs or (LONG_INPUTS if options.long else CI_INPUTS)
    compiled = options.compile if options.compile is not None else (LONG_COMPILED if options.long else CI_COMPILED)
    compilers = harness.DEFAULT_COMPILERS + (harness.MORE_COMPILERS if options.long else ())
    compilers = tuple(compiler for compiler in compilers if shutil.which(compiler.command))
    budget = options.budget or (LONG_BUDGET if options.long else CI_BUDGET)
    report = run(options.seed, inputs, compiled, budget, compilers)
    print(report.summary())
    if report.failures:
        directory = options.failures or Path(tempfile.mkdtemp(prefix="usdt-fuzz-failures-"))
        save_failures(report, directory)
        for index, (_, found) in enumerate(report.failures[:20]):
            print(f"failure-{index:04d}: {found.splitlines()[0][:300]}")
        print(f"failing inputs and problems: {directory}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
