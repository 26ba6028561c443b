/* Shared by the libFuzzer harnesses: an invariant that aborts, so that
 * libFuzzer records the input. */
#ifndef SFC_FUZZ_H
#define SFC_FUZZ_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "invariant failed: %s (%s:%d)\n", #cond, __FILE__,       \
              __LINE__);                                                       \
      abort();                                                                 \
    }                                                                          \
  } while (0)

#endif
