// Loads a Chrome JSON trace-event file with Chrome DevTools' trace engine (the parser of the
// Performance panel, published as @paulirish/trace_engine) and prints, as one JSON object on
// stdout, what the engine made of it: processes, threads with their slices and instants, async
// slices paired by the engine's own matcher, and the events it left out, counted by phase.
//
// usage: node load-trace.mjs [--viewer-dir DIR] TRACE.json
//   DIR holds the node_modules that `npm ci` installed from this directory's package-lock.json;
//   by default $USDT_TIMELINE_VIEWER_DIR, else this script's directory.
// Exit status: 0 loaded, 1 the engine or the file failed (the reason on stderr), 2 usage.
// render-timeline.mjs imports loadTrace.
// Times are the engine's: microseconds, as in the file.
import fs from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const ENGINE = '@paulirish/trace_engine';

function usage(message) {
  process.stderr.write(`load-trace.mjs: ${message}\nusage: node load-trace.mjs [--viewer-dir DIR] TRACE.json\n`);
  process.exit(2);
}

function parseArguments(argv) {
  let viewerDir = defaultViewerDir();
  const files = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--viewer-dir') {
      if (i + 1 >= argv.length) usage('--viewer-dir needs a directory');
      viewerDir = argv[++i];
    } else if (argv[i].startsWith('-')) {
      usage(`unknown option ${argv[i]}`);
    } else {
      files.push(argv[i]);
    }
  }
  if (files.length !== 1) usage('one trace file, please');
  return {viewerDir, file: files[0]};
}

// The packages are missing: its message says what to do, and no stack is printed with it.
export class NotInstalled extends Error {}

// The message of `error`, with its stack where that helps: an error of the engine's, not ours.
export function describe(error) {
  return error instanceof NotInstalled || !error?.stack ? String(error?.message ?? error) : error.stack;
}

// A require() that finds the packages installed in viewerDir, having checked that `name` is one.
export function requireFrom(viewerDir, name) {
  const require = createRequire(path.join(path.resolve(viewerDir), 'package.json'));
  try {
    require.resolve(`${name}/package.json`);
  } catch {
    throw new NotInstalled(`${name} is not installed in ${path.resolve(viewerDir)}: run \`ctest -R tool.timeline_viewer_install\` ` +
                    '(it installs into BUILD/tests/tool/timeline/viewer) and pass that directory with --viewer-dir or ' +
                    'USDT_TIMELINE_VIEWER_DIR, or run `npm ci` in a copy of tests/tool/timeline\'s package.json and package-lock.json');
  }
  return require;
}

// The engine's package has no "exports": resolve its "main" from DIR, then import it as a module.
async function importEngine(viewerDir) {
  const require = requireFrom(viewerDir, ENGINE);
  const main = require.resolve(ENGINE);
  const packageJson = JSON.parse(fs.readFileSync(require.resolve(`${ENGINE}/package.json`), 'utf8'));
  return {Trace: await import(pathToFileURL(main).href), version: packageJson.version};
}

function sliceOf(event, node) {
  const slice = {name: event.name, cat: event.cat ?? null, ph: event.ph, ts: event.ts, dur: event.dur ?? 0};
  if (node) slice.depth = node.depth;
  slice.args = event.args ?? {};
  return slice;
}

// What the engine in viewerDir loaded from the trace file: the object this script prints.
export async function loadTrace(file, viewerDir) {
  const {Trace, version} = await importEngine(viewerDir);
  // The engine measures layout with DOMRect, which Node lacks; nothing here lays anything out.
  globalThis.DOMRect ??= class DOMRect {
    constructor(x = 0, y = 0, width = 0, height = 0) {
      Object.assign(this, {x, y, width, height});
    }
  };

  const document = JSON.parse(fs.readFileSync(file, 'utf8'));
  const rawEvents = Array.isArray(document) ? document : document.traceEvents;
  if (!Array.isArray(rawEvents)) throw new Error(`${file}: no traceEvents array`);

  // What the engine says while parsing (unbalanced B/E, for one) goes into the result.
  const warnings = [];
  const consoleError = console.error;
  const consoleWarn = console.warn;
  console.error = console.warn = (...parts) => warnings.push(parts.map(String).join(' '));
  let data;
  let asyncEvents;
  try {
    const model = Trace.TraceModel.Model.createWithAllHandlers();
    await model.parse(rawEvents);
    const parsed = model.parsedTrace();
    data = parsed.data;
    // The engine pairs async begin/end ('b'/'e', and 'n' between) of its own categories only
    // (user timings, console.time); its generic matcher, the one those handlers call, pairs
    // ours. It needs the synthetic-event manager of this parse, still active here.
    const asyncRaw = parsed.traceEvents.filter(event => ['b', 'e', 'n'].includes(event.ph));
    asyncEvents = Trace.Helpers.Trace.createMatchedSortedSyntheticEvents(asyncRaw);
  } finally {
    console.error = consoleError;
    console.warn = consoleWarn;
  }

  const shown = new Set();
  const processes = [];
  for (const [pid, metadata] of data.Meta.processNames) {
    processes.push({pid, name: metadata.args?.name ?? null});
    shown.add(metadata);
  }
  const threadNames = new Map();
  for (const [pid, threads] of data.Meta.threadsInProcess) {
    for (const [tid, metadata] of threads) {
      threadNames.set(`${pid}:${tid}`, metadata.args?.name ?? null);
      shown.add(metadata);
    }
  }

  const raw = new Set(rawEvents);
  let beginEndPairs = 0;
  const threads = [];
  for (const [pid, rendererProcess] of data.Renderer.processes) {
    for (const [tid, thread] of rendererProcess.threads) {
      const slices = [];
      const instants = [];
      for (const entry of thread.entries) {
        const node = data.Renderer.entryToNode.get(entry);
        (entry.ph === 'I' || entry.ph === 'i' ? instants : slices).push(sliceOf(entry, node));
        // A B/E pair becomes a complete event of the engine's own, a copy of the B.
        if (raw.has(entry)) shown.add(entry); else beginEndPairs++;
      }
      threads.push({pid, tid, name: threadNames.get(`${pid}:${tid}`) ?? thread.name ?? null, slices, instants});
    }
  }

  const asyncSlices = asyncEvents.map(event => {
    const {beginEvent, endEvent, instantEvents} = event.args.data;
    shown.add(beginEvent);
    if (endEvent) shown.add(endEvent);
    for (const instant of instantEvents ?? []) shown.add(instant);
    return {
      name: event.name, cat: event.cat ?? null, id: beginEvent.id ?? beginEvent.id2 ?? null,
      ts: event.ts, dur: event.dur,
      begin: {pid: beginEvent.pid, tid: beginEvent.tid, args: beginEvent.args ?? {}},
      end: endEvent ? {pid: endEvent.pid, tid: endEvent.tid, args: endEvent.args ?? {}} : null,
    };
  });

  const notShown = {};
  for (const event of rawEvents) {
    if (!shown.has(event)) notShown[event.ph] = (notShown[event.ph] ?? 0) + 1;
  }
  for (const phase of ['B', 'E']) {
    const left = (notShown[phase] ?? 0) - beginEndPairs;
    if (left) notShown[phase] = left;
    else delete notShown[phase];
  }

  return {
    viewer: {name: ENGINE, version},
    generic: data.Meta.traceIsGeneric,
    bounds: {min: data.Meta.traceBounds.min, max: data.Meta.traceBounds.max},
    processes,
    threads,
    async_slices: asyncSlices,
    not_shown: notShown,
    warnings,
  };
}

async function main() {
  const {viewerDir, file} = parseArguments(process.argv.slice(2));
  process.stdout.write(`${JSON.stringify(await loadTrace(file, viewerDir), null, 1)}\n`);
}

export function defaultViewerDir() {
  return process.env.USDT_TIMELINE_VIEWER_DIR || path.dirname(fileURLToPath(import.meta.url));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch(error => {
    process.stderr.write(`load-trace.mjs: ${describe(error)}\n`);
    process.exit(1);
  });
}
