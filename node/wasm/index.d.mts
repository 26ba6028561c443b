// Types of the ES module entry: the same API as index.d.ts, plus the
// default export (the whole module object).
import * as snowflake from '../index.js';

export * from '../index.js';
export default snowflake;
