// Types of the ES module entry of snowflake-c/json: the same as json.d.ts,
// plus the default export (the whole module object).
import * as json from './json.js';

export * from './json.js';
export default json;
