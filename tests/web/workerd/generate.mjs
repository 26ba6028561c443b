// Generation in the Workers runtime, through snowflake-c/wasm's entry for
// workers (worker.mjs: the .wasm imported as a compiled module). Production
// Workers freeze Date.now() and performance.now() between I/O; the workerd
// of npm does not, so each request freezes them itself for its checks and
// answers with what it saw, for the test in Node.js to judge.
import {
  ClockMovedBackwards,
  Generator,
  InvalidArgument,
  Layout,
  decode,
} from 'snowflake-c/worker.mjs';

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
    node: Number(url.searchParams.get('node')),
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

// close() as the way to release where nothing tells when a generator is
// collected (no FinalizationRegistry before 2025's compatibility dates): a
// generator of its own closed, then refused; layouts made again and again.
function release(url) {
  const options = {
    layout: 'time:41@1ms,worker:10,seq:12',
    epoch: Number(url.searchParams.get('epoch')),
    node: 8,
  };
  const g = new Generator(options);
  const ids = g.nextIds(100);
  g.close();
  let afterClose;
  try {
    g.nextId();
  } catch (e) {
    afterClose = { name: e.name, isInvalidArgument: e instanceof InvalidArgument };
  }
  for (let i = 0; i < 1000; i++) {
    Layout.parse(options.layout, options.epoch + (i % 100));
    new Generator({ layout: Layout.parse(options.layout, options.epoch), node: 8 }).close();
  }
  return {
    weakRefs: typeof FinalizationRegistry === 'function' && typeof WeakRef === 'function',
    issued: ids.length,
    afterClose,
  };
}

export default {
  fetch(request) {
    const url = new URL(request.url);
    const route = { '/generate': generate, '/release': release }[url.pathname];
    // Any other path answers that the worker is up, and makes no generator.
    if (route === undefined) return new Response('up');
    try {
      return Response.json(route(url));
    } catch (error) {
      return new Response(String(error && error.stack), { status: 500 });
    }
  },
};
