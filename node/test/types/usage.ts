// Compiled with `tsc --noEmit` (npm run typecheck): index.d.ts describes the
// API as the tests use it.
import {
  Encoding,
  formatId,
  parseId,
  Generator,
  GeneratorWarning,
  Layout,
  Parts,
  PresetName,
  decode,
  encode,
  range,
  presets,
  SnowflakeError,
  InvalidLayout,
} from 'snowflake-c';

const g = new Generator({ preset: 'twitter', node: { datacenter: 1, worker: 3 } });
const id: bigint = g.nextId();
const text: string = g.nextIdString();
const batch: BigUint64Array = g.nextIds(1000);
const at = g.nextIdAt(1700000000000000n);
const waited: number | undefined = 'waitUs' in at ? at.waitUs : undefined;
const some = g.nextIdsAt('1700000000000000', 3);
const later: Promise<bigint> = g.nextIdAsync();
g.stats().nodeSources.worker;
const maxWaitMs: number = g.stats().maxWaitMs;
const nodeValue: number | bigint | undefined = g.stats().node.worker;
g.close();

const pooled = new Generator({
  layout: 'time:41@1ms,worker:10,seq:12',
  epoch: '2024-01-01',
  node: { worker: 'auto' },
  stateDir: '/var/lib/ids',
  rollback: 'clock',
  maxWait: 5,
});
pooled.close();

const parts: Parts = decode(175928847299117063n, { preset: 'discord' });
// @ts-expect-error: no layout is assumed for an ID made elsewhere
decode(175928847299117063n);
// @ts-expect-error: a preset's name is one of the core's (a typo is caught here)
decode(175928847299117063n, 'dicsord');
const json: string = JSON.stringify(parts);
const worker: number | bigint | undefined = parts.fields.worker;
const back: bigint = encode(parts, 'discord');
const built: bigint = encode(
  { timeMs: 1462015105796, worker: 1, process: 0, seq: 7 },
  { preset: 'discord' },
);
const { min, max } = range(new Date(0), '2024-01-02', Layout.preset('twitter'));
const layout = Layout.parse('time:41@1ms,worker:10,seq:12', 1704067200000);
const rate: number = layout.describe().idsPerSecond;
const names: string[] = presets().map((p) => p.name);

try {
  Layout.preset('nope' as PresetName); // a name from configuration, typed by the caller
} catch (e) {
  if (e instanceof InvalidLayout) {
    const code: 'InvalidLayout' = e.code;
  } else if (e instanceof SnowflakeError) {
    e.ids?.length;
  }
}

void [id, text, batch, waited, some, later, json, worker, back, built, min, max, rate, names];

// String forms.
const enc: Encoding = 'base62';
const short: string = formatId(175928847299117063n, enc, { pad: false });
const parsed: bigint = parseId(short, 'base62');
decode('0Czks0tP37X', { preset: 'discord', encoding: 'base62' });

// The host-wide guard.
const guarded = new Generator({
  preset: 'twitter',
  node: { datacenter: 'env:DATACENTER', worker: 3 },
  guard: true,
});
const guardState: string = guarded.stats().guard;
const said: readonly GeneratorWarning[] = guarded.warnings;
const firstKind: string | undefined = said[0]?.kind;
// @ts-expect-error the warnings are read-only
guarded.warnings.push({ kind: 'Unguarded', message: '' });
guarded.close();
new Generator({ preset: 'twitter', node: { datacenter: 1, worker: 3 }, guard: false }).close();
// @ts-expect-error guard is a boolean
new Generator({ preset: 'twitter', node: { datacenter: 1, worker: 3 }, guard: 'off' });
void guardState;
void firstKind;

// A leased node value: made asynchronously, its lease in the stats.
async function leasedUsage(): Promise<void> {
  const leased: Generator = await Generator.create({
    preset: 'twitter',
    node: { datacenter: 1, worker: 'lease' },
    lease: 'postgresql://app@db/app',
    leaseDuration: '60s',
    leaseKey: 'orders-1',
  });
  const state: string | undefined = leased.stats().lease?.state;
  const value: number | undefined = leased.stats().lease?.value;
  await leased.closeAsync();
  // @ts-expect-error the database is text
  await Generator.create({ preset: 'twitter', node: 1, lease: 5 });
  void state;
  void value;
}
void leasedUsage;
