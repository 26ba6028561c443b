"""`snowflake-c gen` in Python, for the guard's rows of tests/reliability/run:
a generator with the guard at its defaults (no guard option given), IDs
written one per line as they come; an error is printed on standard error as
"snowflake-c: <Kind>: <message>", like the CLI's, with exit status 1.

Usage: gen.py COUNT LAYOUT EPOCH NODE    (NODE as the CLI's: worker=3,pod=host)
"""

import sys

import snowflake_c

BATCH = 64


def main():
    count, layout, epoch, node_text = sys.argv[1:5]
    node = {}
    for pair in node_text.split(","):
        name, _, value = pair.partition("=")
        node[name] = int(value) if value.isdigit() else value
    try:
        gen = snowflake_c.Generator(layout=layout, epoch=int(epoch), node=node)
        with gen:
            left = int(count)
            while left > 0:
                ids = gen.next_ids(min(left, BATCH))
                sys.stdout.write("".join(f"{i}\n" for i in ids))
                sys.stdout.flush()
                left -= len(ids)
    except snowflake_c.SnowflakeError as e:
        print(f"snowflake-c: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
