// The ES module entry's types, default export included.
import snowflake, { Generator, decode } from 'snowflake-c';

const g: Generator = new snowflake.Generator({
  preset: 'discord',
  node: { worker: 1, process: 2 },
});
const json: string = JSON.stringify(decode(g.nextId(), 'discord'));
g.close();
void json;
