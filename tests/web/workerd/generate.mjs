// Generation in the Workers runtime, through snowflake-c/wasm's entry for
// workers (worker.mjs: the .wasm imported as a compiled module). Production
// Workers freeze Date.now() and performance.now() between I/O; the workerd
// of npm does not, so each request freezes them itself for its checks and
// answers with what it saw, for the test in Node.js to judge.
import { ClockMovedBackwards, Generator, decode } from 'snowflake-c/worker.mjs';

/** Runs fn with Date.now() and performance.now() frozen at the present. */
function frozen(fn) {
  const { now } = Date;
  const perfNow = performance.now;
  const wall = Date.now();
  const mono = performance.now();
  Date.now = () => wall;
  Object.defineProperty(performance, 'now', {
    value: () => mono,
    configurable: true,
    writable: true,
  });
  try {
    return fn(wall);
  } finally {
    Date.now = now;
    Object.defineProperty(performance, 'now', {
      value: perfNow,
      configurable: true,
      writable: true,
    });
  }
}

// One generator for the isolate, as a Worker keeps it: made at the first
// request (Workers allow no random bytes outside a handler), then each
// request draws from it until the frozen clock stops it.
let generator;

function generate(url) {
  generator ??= new Generator({
    // 1 ms ticks, 4 IDs a tick: the frozen tick runs out at once.
    layout: 'time:41@1ms,worker:10,seq:2',
    epoch: Number(url.searchParams.get('epoch')),
    node: 7,
    rollback: 'borrow',
    maxDrift: Number(url.searchParams.get('maxDrift')),
  });
  const g = generator;
  return frozen((wall) => {
    const ids = [];
    let error;
    for (let i = 0; i < 10000; i++) {
      try {
        ids.push(g.nextId());
      } catch (e) {
        error = e;
        break;
      }
    }
    const stats = g.stats();
    return {
      wall,
      ids: ids.map(String),
      timesMs: ids.map((id) => decode(id, g.layout).timeMs),
      workers: ids.map((id) => decode(id, g.layout).fields.worker),
      error: error && {
        name: error.name,
        isClockMovedBackwards: error instanceof ClockMovedBackwards,
        message: error.message,
      },
      stats: { idsIssued: stats.idsIssued, borrowedTicks: stats.borrowedTicks, guard: stats.guard },
    };
  });
}

export default {
  fetch(request) {
    const url = new URL(request.url);
    // Any other path answers that the worker is up, and makes no generator.
    if (url.pathname !== '/generate') return new Response('up');
    try {
      return Response.json(generate(url));
    } catch (error) {
      return new Response(String(error && error.stack), { status: 500 });
    }
  },
};
