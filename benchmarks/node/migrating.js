'use strict';
// docs/migrating.md against @sapphire/snowflake's own IDs: each row of the
// page's table for @sapphire/snowflake names the snowflake-c layout that
// reads that peer's IDs; this makes IDs with the peer (DiscordSnowflake,
// TwitterSnowflake, new Snowflake(epoch)), decodes them under the layout the
// row gives, and checks the time and every field against the peer's own
// deconstruct(). Exits non-zero on any difference; benchmarks/run runs it
// before the timings.
//
//   node benchmarks/node/migrating.js
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const sfc = require(path.join(__dirname, '..', '..', 'node'));
const { DiscordSnowflake, TwitterSnowflake, Snowflake } = require('@sapphire/snowflake');

const PAGE = path.join(__dirname, '..', '..', 'docs', 'migrating.md');
// The epoch for the row of `new Snowflake(epoch)`: any, as the row's EPOCH.
const OWN_EPOCH = 1704067200000n;
const PEERS = {
  '`DiscordSnowflake`': DiscordSnowflake,
  '`TwitterSnowflake`': TwitterSnowflake,
  '`new Snowflake(epoch)`': new Snowflake(OWN_EPOCH),
};

/** The page's rows for @sapphire/snowflake: [the peer's cell, the snowflake-c cell]. */
function rows() {
  const text = fs.readFileSync(PAGE, 'utf8');
  return text
    .split('\n')
    .filter((line) => line.startsWith('|') && line.includes('@sapphire/snowflake'))
    .map((line) => line.split('|').map((cell) => cell.trim()))
    .map((cells) => [cells[1], cells[cells.length - 2]]);
}

/** The layout a row's command-line flags name (EPOCH: OWN_EPOCH). */
function layoutOf(cell) {
  const flags = /`([^`]*)`/.exec(cell)[1].split(/\s+/);
  const value = (name) => {
    const i = flags.indexOf(name);
    return i < 0 ? undefined : flags[i + 1];
  };
  if (value('--preset') !== undefined) return sfc.Layout.preset(value('--preset'));
  const epoch = value('--epoch') === 'EPOCH' ? OWN_EPOCH : value('--epoch');
  return sfc.Layout.parse(value('--layout'), epoch);
}

let checked = 0;
for (const [peerCell, ourCell] of rows()) {
  const name = Object.keys(PEERS).find((key) => peerCell.includes(key));
  assert.ok(
    name,
    `a row of migrating.md names a @sapphire/snowflake class this check lacks: ${peerCell}`,
  );
  const peer = PEERS[name];
  const layout = layoutOf(ourCell);
  // Its two node fields in the layout's order are the peer's worker and process.
  const nodes = layout
    .describe()
    .fields.filter((f) => f.kind === 'node')
    .map((f) => f.name);
  assert.equal(nodes.length, 2, `${name}: ${layout.spec}`);
  const seq = layout.describe().fields.find((f) => f.kind === 'seq').name;
  for (const [workerId, processId] of [
    [0n, 0n],
    [1n, 0n],
    [17n, 29n],
    [31n, 31n],
  ]) {
    for (let i = 0; i < 64; i++) {
      const id = peer.generate({ workerId, processId });
      const want = peer.deconstruct(id);
      const got = sfc.decode(id, layout);
      const where = `${name}: ${id} under ${ourCell}`;
      assert.equal(BigInt(got.timeMs), want.timestamp, where);
      assert.equal(BigInt(got.fields[nodes[0]]), want.workerId, where);
      assert.equal(BigInt(got.fields[nodes[1]]), want.processId, where);
      assert.equal(BigInt(got.fields[seq]), want.increment, where);
      checked++;
    }
  }
}
assert.equal(checked, Object.keys(PEERS).length * 4 * 64, 'every @sapphire/snowflake row checked');
console.log(
  `docs/migrating.md: ${checked} IDs of @sapphire/snowflake read as its own deconstruct() reads them`,
);
