// snowflake-c/wasm's types: the native package's, default export included.
import snowflake, { Generator, decode, ClockMovedBackwards } from 'snowflake-c/wasm';
import * as native from 'snowflake-c';

const g: native.Generator = new snowflake.Generator({
  preset: 'discord',
  node: { worker: 1, process: 2 },
  rollback: 'borrow',
  maxDrift: 20,
});
const same: Generator = g;
const json: string = JSON.stringify(decode(same.nextId(), 'discord'));
const borrowed: number = same.stats().borrowedTicks;
const kind: typeof native.ClockMovedBackwards = ClockMovedBackwards;
g.close();
void json;
void borrowed;
void kind;
