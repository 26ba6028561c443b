// Compiled with `tsc --noEmit` (npm run typecheck): json.d.ts describes
// snowflake-c/json as the tests use it.
import { replacer, reviver, stringifyIds, parseIds, createJsonIds } from 'snowflake-c/json';
import * as wasm from 'snowflake-c/wasm';

const text: string = JSON.stringify({ id: 1n }, replacer());
const base62: string = stringifyIds({ id: 1n }, { encoding: 'base62', keys: ['id'], space: 2 });
const back: { id: bigint } = JSON.parse(text, reviver({ keys: ['id'] }));
const order = parseIds<{ id: bigint; userId: bigint }>(base62, {
  keys: (key) => key === 'id' || key.endsWith('Id'),
  encoding: 'base62',
});
const fromWasm = createJsonIds(wasm).parseIds<{ id: bigint }>(text, { keys: new Set(['id']) });
const sum: bigint = back.id + order.userId + fromWasm.id;

// @ts-expect-error: a reviver needs the keys that hold IDs
reviver({});
// @ts-expect-error: not an encoding
replacer({ encoding: 'base64' });

export { sum };
