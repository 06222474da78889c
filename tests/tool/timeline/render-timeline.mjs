// Draws a Chrome JSON trace-event file as a PNG for the docs, in headless Chromium (Debian's
// chromium, driven by playwright-core). Run by hand, not by the tests:
//
//   node tests/tool/timeline/render-timeline.mjs [--viewer-dir DIR] [--chromium PATH] [--width PX]
//        [--window FROM,TO] [--speedscope] TRACE.json OUT.png
//
// DIR: where `npm ci` installed this directory's package-lock.json (CTest's fixture puts it in
// BUILD/tests/tool/timeline/viewer); by default $USDT_TIMELINE_VIEWER_DIR, else this directory.
// FROM,TO: the part of the trace to draw, in microseconds from its first event (default: all).
//
// By default the picture is a timeline laid out as Perfetto lays one out, drawn from what
// Chrome DevTools' trace engine loaded (load-trace.mjs): a track per thread under its process,
// slices at their depth, async slices on lanes of a track per name, all on one time axis. The
// instants come from the file itself, since the engine leaves out the format's "i".
// --speedscope screenshots speedscope instead, a viewer in its own right, one thread under
// another (its "Time Order" view: each thread on its own time axis; no async slices, no instants).
import fs from 'node:fs';
import path from 'node:path';

import {defaultViewerDir, describe, loadTrace, requireFrom} from './load-trace.mjs';

function usage(message) {
  process.stderr.write(`render-timeline.mjs: ${message}\nusage: node render-timeline.mjs [--viewer-dir DIR] ` +
                       '[--chromium PATH] [--width PX] [--window FROM,TO] [--speedscope] TRACE.json OUT.png\n');
  process.exit(2);
}

function parseArguments(argv) {
  const options = {viewerDir: defaultViewerDir(), chromium: '/usr/bin/chromium', width: 1200, speedscope: false};
  const files = [];
  for (let i = 0; i < argv.length; i++) {
    const value = () => (i + 1 < argv.length ? argv[++i] : usage(`${argv[i]} needs a value`));
    if (argv[i] === '--viewer-dir') options.viewerDir = value();
    else if (argv[i] === '--chromium') options.chromium = value();
    else if (argv[i] === '--width') options.width = Number(value());
    else if (argv[i] === '--speedscope') options.speedscope = true;
    else if (argv[i] === '--window') {
      const [from, to] = value().split(',').map(Number);
      if (!(from >= 0 && to > from)) usage('--window FROM,TO: microseconds from the trace\'s first event, FROM < TO');
      options.window = {from, to};
    }
    else if (argv[i].startsWith('-')) usage(`unknown option ${argv[i]}`);
    else files.push(argv[i]);
  }
  if (files.length !== 2) usage('a trace file and a PNG to write, please');
  if (!fs.existsSync(options.chromium)) {
    usage(`no Chromium at ${options.chromium}: apt-get install chromium, or give --chromium PATH`);
  }
  [options.trace, options.png] = files;
  return options;
}

const escape = text => String(text).replace(/[&<>"]/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]));

function colourOf(name) {
  let hash = 0;
  for (const c of name) hash = (hash * 31 + c.codePointAt(0)) >>> 0;
  return `hsl(${hash % 360}, 55%, 72%)`;
}

// A round step for about `count` ticks over `range` microseconds.
function tickStep(range, count) {
  const rough = range / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 5, 10].map(m => m * power).find(step => step >= rough);
}

function formatMicroseconds(us) {
  if (us === 0) return '0';
  if (Math.abs(us) >= 1000) return `${+(us / 1000).toFixed(3)} ms`;
  return `${+us.toFixed(3)} µs`;
}

// Greedy lanes: each span on the first lane free at its start.
function laneOf(spans) {
  const laneEnds = [];
  return spans.map(span => {
    let lane = laneEnds.findIndex(end => end <= span.ts);
    if (lane < 0) lane = laneEnds.length;
    laneEnds[lane] = span.ts + span.dur;
    return lane;
  });
}

function timelineHtml(loaded, rawEvents, width, window) {
  const labelWidth = 190;
  const rowHeight = 20;
  const plotWidth = width - labelWidth - 60;  // room for the last tick's label
  const instants = rawEvents.filter(event => event.ph === 'i' || event.ph === 'I');
  const names = new Map();
  for (const event of rawEvents) {
    if (event.ph === 'M' && event.name === 'process_name') names.set(`${event.pid}`, event.args.name);
    if (event.ph === 'M' && event.name === 'thread_name') names.set(`${event.pid}:${event.tid}`, event.args.name);
  }

  const starts = [];
  const ends = [];
  for (const thread of loaded.threads) {
    for (const slice of thread.slices) { starts.push(slice.ts); ends.push(slice.ts + slice.dur); }
  }
  for (const span of loaded.async_slices) { starts.push(span.ts); ends.push(span.ts + span.dur); }
  for (const instant of instants) { starts.push(instant.ts); ends.push(instant.ts); }
  const traceStart = Math.min(...starts);
  const start = traceStart + (window?.from ?? 0);
  const range = Math.max((window?.to !== undefined ? traceStart + window.to : Math.max(...ends)) - start, 1);
  const x = ts => labelWidth + ((ts - start) / range) * plotWidth;

  // Tracks, process by process: its async slices by name, then its threads by tid.
  const pids = [...new Set([...loaded.threads.map(t => t.pid), ...loaded.async_slices.map(s => s.begin.pid),
                            ...instants.map(i => i.pid)])].sort((a, b) => a - b);
  const parts = [];
  const plot = [];  // what lies on the time axis, clipped to the window
  let y = 34;
  const step = tickStep(range, 8);
  for (let t = 0; t <= range; t += step) {
    parts.push(`<line x1="${x(start + t)}" x2="${x(start + t)}" y1="22" y2="100%" class="grid"/>`,
               `<text x="${x(start + t) + 3}" y="16" class="tick">${formatMicroseconds(start - traceStart + t)}</text>`);
  }
  const label = (text, sub, className) =>
    parts.push(`<text x="8" y="${y + 14}" class="${className}">${escape(text)}<tspan class="sub"> ${escape(sub)}</tspan></text>`);
  const slice = (ts, dur, row, name, detail) => {
    const left = x(ts);
    const w = Math.max(x(ts + dur) - left, 1);
    const top = y + row * rowHeight;
    plot.push(`<rect x="${left}" y="${top + 1}" width="${w}" height="${rowHeight - 2}" fill="${colourOf(name)}"/>`,
               `<svg x="${left}" y="${top}" width="${w}" height="${rowHeight}"><text x="4" y="14" class="name">` +
               `${escape(name)}<tspan class="sub"> ${escape(detail)}</tspan></text></svg>`);
  };
  for (const pid of pids) {
    parts.push(`<rect x="0" y="${y}" width="100%" height="${rowHeight + 2}" class="process"/>`);
    label(names.get(`${pid}`) ?? 'process', `${pid}`, 'process-name');
    y += rowHeight + 6;
    const asyncByName = new Map();
    for (const span of loaded.async_slices.filter(s => s.begin.pid === pid)) {
      if (!asyncByName.has(span.name)) asyncByName.set(span.name, []);
      asyncByName.get(span.name).push(span);
    }
    for (const [name, spans] of asyncByName) {
      spans.sort((a, b) => a.ts - b.ts);
      const lanes = laneOf(spans);
      label(name, 'async', 'thread-name');
      spans.forEach((span, i) => slice(span.ts, span.dur, lanes[i], name,
                                       `id ${span.id}, ${span.begin.tid}→${span.end ? span.end.tid : '?'}`));
      y += (Math.max(...lanes) + 1) * rowHeight + 6;
    }
    const tids = [...new Set([...loaded.threads.filter(t => t.pid === pid).map(t => t.tid),
                              ...instants.filter(i => i.pid === pid).map(i => i.tid)])].sort((a, b) => a - b);
    for (const tid of tids) {
      const thread = loaded.threads.find(t => t.pid === pid && t.tid === tid);
      const slices = thread ? thread.slices : [];
      const threadInstants = instants.filter(i => i.pid === pid && i.tid === tid);
      const rows = Math.max(0, ...slices.map(s => s.depth + 1));
      parts.push(`<line x1="0" x2="100%" y1="${y - 3}" y2="${y - 3}" class="separator"/>`);
      label(names.get(`${pid}:${tid}`) ?? 'thread', `${tid}`, 'thread-name');
      // Instants on a row of their own above the thread's slices, as markers named to their right.
      if (threadInstants.length) {
        let labelEnd = -Infinity;  // a name only where it does not run into the previous one
        for (const instant of threadInstants.sort((a, b) => a.ts - b.ts)) {
          const cx = x(instant.ts);
          plot.push(`<path d="M${cx - 5},${y + 2} L${cx + 5},${y + 2} L${cx},${y + 11} Z" class="instant"/>`);
          if (cx + 7 > labelEnd) {
            plot.push(`<text x="${cx + 7}" y="${y + 11}" class="instant-name">${escape(instant.name)}</text>`);
            labelEnd = cx + 7 + instant.name.length * 6 + 6;
          }
        }
        y += 14;
      }
      for (const s of slices) slice(s.ts, s.dur, s.depth, s.name, JSON.stringify(s.args));
      y += Math.max(rows * rowHeight, threadInstants.length ? 6 : rowHeight) + 6;
    }
  }
  const height = y + 8;
  return `<!doctype html><meta charset="utf-8"><style>
    body { margin: 0; background: white; font: 12px "DejaVu Sans", sans-serif; }
    .grid { stroke: #e4e4e4; } .separator { stroke: #d0d0d0; }
    .tick { fill: #666; font-size: 11px; }
    .process { fill: #eef1f6; } .process-name { font-weight: bold; }
    .thread-name { fill: #222; } .sub { fill: #777; font-weight: normal; }
    .name { fill: #111; font-size: 11px; } .name .sub { fill: #444; }
    .instant { fill: #d04040; } .instant-name { fill: #a03030; font-size: 10px; }
  </style><svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<clipPath id="plot"><rect x="${labelWidth - 6}" y="0" width="${width - labelWidth + 6}" height="${height}"/></clipPath>` +
    `${parts.join('')}<g clip-path="url(#plot)">${plot.join('')}</g></svg>`;
}

async function renderTimeline(browser, options) {
  const loaded = await loadTrace(options.trace, options.viewerDir);
  const document = JSON.parse(fs.readFileSync(options.trace, 'utf8'));
  const rawEvents = Array.isArray(document) ? document : document.traceEvents;
  const page = await browser.newPage({viewport: {width: options.width, height: 200}, deviceScaleFactor: 2});
  await page.setContent(timelineHtml(loaded, rawEvents, options.width, options.window));
  await page.screenshot({path: options.png, fullPage: true});
}

// speedscope's own page, given the file as its command line gives it (#localProfilePath), one
// screenshot per thread ('n' shows the next), stacked into one picture.
async function renderSpeedscope(browser, options, require) {
  const index = path.join(path.dirname(require.resolve('speedscope/package.json')), 'dist/release/index.html');
  const loader = path.join(path.dirname(path.resolve(options.png)), `.${path.basename(options.png)}.speedscope.js`);
  fs.writeFileSync(loader, `speedscope.loadFileFromBase64(${JSON.stringify(path.basename(options.trace))}, ` +
                           `${JSON.stringify(fs.readFileSync(options.trace).toString('base64'))})`);
  try {
    const page = await browser.newPage({viewport: {width: options.width, height: 260}, deviceScaleFactor: 2});
    await page.goto(`file://${index}#localProfilePath=${loader}`);
    await page.waitForFunction(() => document.title.includes(' - speedscope'), null, {timeout: 30000});
    const count = await page.evaluate(() => Number((/\((\d+)\/(\d+)\)/.exec(document.body.innerText) ?? [0, 1, 1])[2]));
    const shots = [];
    for (let i = 0; i < count; i++) {
      if (i) await page.keyboard.press('n');
      await page.waitForTimeout(300);
      shots.push((await page.screenshot()).toString('base64'));
    }
    await page.setContent(`<body style="margin:0">${shots.map(shot =>
      `<img src="data:image/png;base64,${shot}" style="display:block;width:${options.width}px">`).join('')}</body>`);
    await page.screenshot({path: options.png, fullPage: true});
  } finally {
    fs.rmSync(loader, {force: true});
  }
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const require = requireFrom(options.viewerDir, 'playwright-core');
  const {chromium} = require('playwright-core');
  const browser = await chromium.launch({executablePath: options.chromium, args: ['--allow-file-access-from-files']});
  try {
    if (options.speedscope) await renderSpeedscope(browser, options, require);
    else await renderTimeline(browser, options);
  } finally {
    await browser.close();
  }
  process.stdout.write(`${options.png}\n`);
}

main().catch(error => {
  process.stderr.write(`render-timeline.mjs: ${describe(error)}\n`);
  process.exit(1);
});
