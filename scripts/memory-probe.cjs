// Preloaded into the bench's worker process (NODE_OPTIONS=--require; plain JS, as the worker may run
// compiled): every thread of it — the main thread with the activities, Temporal's workflow thread,
// parser threads — appends its memory to MEMORY_PROBE_FILE every 250 ms, one JSON line per sample,
// so bench:load can say where the memory goes (a `deep-research worker` that runs itself again with
// its memory settings loads it twice: the samples say which process wrote them). Writing a number n into `<file>.gc` makes every
// thread collect its garbage and write a sample marked `gc: n`: heap figures of live objects only.
// Writing n into `<file>.snap` has the main thread write a heap snapshot, `<file>.main-n.heapsnapshot`.
'use strict';
const { appendFileSync, existsSync, readFileSync } = require('node:fs');
const v8 = require('node:v8');
const { runInNewContext } = require('node:vm');
const { isMainThread, threadId } = require('node:worker_threads');

const file = process.env.MEMORY_PROBE_FILE;
if (file) {
  v8.setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc');
  let collected = 0;
  let snapped = 0;
  const sample = (gc) => {
    const m = process.memoryUsage();
    const line = { t: Date.now(), pid: process.pid, thread: threadId, main: isMainThread, rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, ...(gc ? { gc } : {}) };
    appendFileSync(file, JSON.stringify(line) + '\n');
  };
  setInterval(() => {
    const requested = existsSync(`${file}.gc`) ? Number(readFileSync(`${file}.gc`, 'utf8')) : 0;
    if (requested > collected) {
      collected = requested;
      collect();
      collect();
      sample(requested);
    } else sample();
    const snapshot = isMainThread && existsSync(`${file}.snap`) ? Number(readFileSync(`${file}.snap`, 'utf8')) : 0;
    if (snapshot > snapped) {
      snapped = snapshot;
      v8.writeHeapSnapshot(`${file}.main-${snapshot}.heapsnapshot`);
    }
  }, 250).unref();
}
