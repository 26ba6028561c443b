// A project without @types/node, libraries checked (skipLibCheck: false),
// and no disposable lib of its own: the typings still compile.
import { Generator, decode } from '../../..';

const g = new Generator({ preset: 'twitter', node: { datacenter: 1, worker: 3 } });
const worker: number | bigint | undefined = decode(g.nextId(), 'twitter').fields.worker;
g.close();
export { worker };
