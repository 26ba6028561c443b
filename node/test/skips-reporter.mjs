// A reporter for node --test (node/run-tests.sh adds it beside the one on
// the terminal): one line per skipped test, "FILE > NAME\tREASON", which
// node/run-tests.sh hands to tests/skip (SNOWFLAKE_C_SKIPS, and a failure
// under SNOWFLAKE_C_NO_SKIP=1).
import path from 'node:path';

export default async function* skips(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { skip, name, file } = event.data;
    if (skip === undefined || skip === false) continue;
    const where = file ? path.relative(process.cwd(), file) : '?';
    const why = skip === true ? 'skipped' : String(skip);
    yield `${where} > ${name}\t${why.replace(/\s+/g, ' ')}\n`;
  }
}
