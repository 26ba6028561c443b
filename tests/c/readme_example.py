#!/usr/bin/env python3
"""Writes the README's C example (its one ```c block) to a file, so that the
build compiles it and the tests run it: the manual's example cannot rot."""

import re
import sys
from pathlib import Path

blocks = re.findall(r"```c\n(.*?)```", Path(sys.argv[1]).read_text(), flags=re.S)
if len(blocks) != 1:
    sys.exit(f"expected one C example in {sys.argv[1]}, found {len(blocks)}")
Path(sys.argv[2]).write_text(blocks[0])
