// snowflake-c/json as an ES module: the same functions as the CommonJS entry.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const json = require('./json.js');

export const { replacer, reviver, stringifyIds, parseIds, createJsonIds } = json;

export default json;
