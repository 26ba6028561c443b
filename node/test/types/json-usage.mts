// The ES module entry of snowflake-c/json: named and default exports.
import json, { stringifyIds, parseIds } from 'snowflake-c/json';

const text: string = stringifyIds({ id: 2n, ids: new BigUint64Array([3n]) });
const value: { id: bigint; ids: bigint[] } = parseIds(text, { keys: ['id', 'ids'] });
const again: string = json.stringifyIds(value, { encoding: 'hex' });

export { again };
