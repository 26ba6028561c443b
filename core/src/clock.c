/* Time sources and waiting. Never a coarse clock: its 4 ms resolution would
 * waste three ticks in four. */
#include "internal.h"

#include <string.h>
#include <time.h>

int64_t sfc_wall_us(void) {
  struct timespec ts;
  sfc_os_wall(&ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t sfc_monotonic_us(void) {
  struct timespec ts;
  sfc_os_monotonic(&ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t sfc_generator_now_us(const sfc_generator *gen) {
  if (gen->time_source == SFC_TIME_MONOTONIC)
    return sfc_monotonic_us() + gen->mono_offset_us;
  return sfc_wall_us();
}

/* Sleeping is imprecise by the kernel's timer slack (50 µs by default) and a
 * yield hands the core to any other runnable task for its whole time slice,
 * so: sleep until 200 µs before the deadline, then spin. A tick is not lost
 * to a late wake-up, and a core is never burnt for longer than that. */
void sfc_pause(int64_t wait_us) {
  if (wait_us <= 0) return;
  const int64_t deadline = sfc_monotonic_us() + wait_us;
  const int64_t spin_us = 200;
  if (wait_us > spin_us) sfc_os_sleep_until(deadline - spin_us);
  while (sfc_monotonic_us() < deadline)
    for (int i = 0; i < 16; i++)
      sfc_cpu_pause();
}
