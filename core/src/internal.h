/* Shared by the core's translation units; not part of the public API. */
#ifndef SFC_INTERNAL_H
#define SFC_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

/* First: the compiler's specifics (SFC_INTERNAL, SFC_LIKELY, SFC_PRINTF,
 * SFC_ALWAYS_INLINE, ...), some of which the C library's headers read. */
#include "compat.h"

#include "snowflake_c.h"

#include <stdatomic.h>
#include <stdbool.h>

#include "os.h"

/* status.c: fills err (if any) and returns status. */
SFC_INTERNAL sfc_status sfc_fail(sfc_error *err, sfc_status status,
                                 const char *fmt, ...) SFC_PRINTF(3, 4);

/* encoding.c: text for a message, printable ASCII as is and other bytes as
 * \xNN, cut after `most` bytes (40 at most) with "...": out holds
 * SFC_SHOWN_MAX. */
#define SFC_SHOWN_MAX (40 * 4 + 4)
SFC_INTERNAL void sfc_shown(const char *text, size_t len, size_t most,
                            char *out);

/* status.c: the one answer to a call on a closed generator, in every
 * language; `g` (NULL: none), under its lock, says whether a newer
 * generator took it over. */
struct sfc_generator;
SFC_INTERNAL sfc_status sfc_fail_closed(const struct sfc_generator *g,
                                        sfc_error *err);

/* value.c: `words` ("max_wait") as the caller writes names, judged by
 * `given`: "maxWait" after a camelCase name, "max-wait" after a dashed
 * one, else as it is. */
SFC_INTERNAL void sfc_in_casing_of(const char *given, size_t len,
                                   const char *words, char *out, size_t cap);

/* value.c: `given` (len bytes) is `canonical` ("max_wait") in any casing:
 * "maxWait", "MaxWait", "max-wait". */
SFC_INTERNAL bool sfc_same_words(const char *given, size_t len,
                                 const char *canonical);

/* duration.c: "250", "250ms", "1.5s", "800us" (ms unless a unit says
 * otherwise) as seconds + nanos; false when it is not a duration. */
SFC_INTERNAL bool sfc_duration_parse(const char *text, size_t len,
                                     int64_t *seconds, int64_t *nanos);
/* The one rounding rule (up to the next whole ms) and the range
 * min_ms..max_ms, the option named as `name` in messages. */
SFC_INTERNAL sfc_status sfc_duration_check(const char *name, int64_t min_ms,
                                           int64_t max_ms, int64_t seconds,
                                           int64_t nanos, int64_t *ms,
                                           sfc_error *err);
SFC_INTERNAL sfc_status sfc_duration_check_double(const char *name,
                                                  int64_t min_ms,
                                                  int64_t max_ms, double ms,
                                                  int64_t *out, sfc_error *err);

/* FNV-1a, 64 bits, continued from `h` (SFC_FNV_OFFSET to start): the state
 * file's checksum and the host-wide names' hashes. */
#define SFC_FNV_OFFSET UINT64_C(0xcbf29ce484222325)
static inline uint64_t sfc_fnv1a(uint64_t h, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

/* timefmt.c */
SFC_INTERNAL int64_t sfc_days_from_civil(int64_t y, unsigned m, unsigned d);

/* clock.c */
SFC_INTERNAL int64_t sfc_wall_us(void);
SFC_INTERNAL int64_t sfc_monotonic_us(void);

/* counter.c: time_source=counter. sfc_counter_start calibrates once per
 * process and says whether the counter is trusted here (then it sets the
 * generator's counter_base and counter_shift); sfc_counter_arm, after a
 * clock reading made at `count` that issued in `tick`, sets the deadline
 * of that tick. */
#define SFC_UNTIL_UNITS_MAX (UINT64_C(1) << 48)
SFC_INTERNAL extern const char *sfc_counter_source;
SFC_INTERNAL bool sfc_counter_start(sfc_generator *g);
SFC_INTERNAL void sfc_counter_arm(sfc_generator *g, uint64_t count,
                                  long tv_nsec, int64_t tick);
/* Whether the generator issues by the counter (for the tests). */
SFC_INTERNAL bool sfc_counter_on(const sfc_generator *g);

/* The state word is the last ID issued: time, clock and sequence are read
 * from their places in it, the node bits never change, and the next ID of a
 * tick is the word plus one step of the sequence — composing an ID costs
 * nothing. The time field is first and at least one bit wide, so every
 * shift is below 64. */
typedef struct sfc_packing {
  unsigned time_shift, clock_shift, seq_shift;
  uint64_t seq_max, clock_max, time_max;
  uint64_t seq_one;   /* one step of the sequence: 1 << seq_shift */
  uint64_t node_bits; /* the node fields, in place */
  uint64_t keep_mask; /* what a new tick keeps of the word: clock and node */
} sfc_packing;

static inline uint64_t sfc_word(const sfc_packing *p, uint64_t t, uint64_t c,
                                uint64_t s) {
  return (t << p->time_shift) | (c << p->clock_shift) | p->node_bits |
         (s << p->seq_shift);
}
static inline uint64_t sfc_word_time(const sfc_packing *p, uint64_t w) {
  return w >> p->time_shift;
}
static inline uint64_t sfc_word_clock(const sfc_packing *p, uint64_t w) {
  return (w >> p->clock_shift) & p->clock_max;
}
static inline uint64_t sfc_word_seq(const sfc_packing *p, uint64_t w) {
  return (w >> p->seq_shift) & p->seq_max;
}
/* Whether two words differ in more than the sequence. */
static inline bool sfc_word_other_tick(const sfc_packing *p, uint64_t a,
                                       uint64_t b) {
  return ((a ^ b) & ~(p->seq_max << p->seq_shift)) != 0;
}

/* node.c — resolved node identity. */
typedef struct sfc_node {
  unsigned count;
  int field[SFC_MAX_FIELDS]; /* layout index of each node field */
  uint64_t value[SFC_MAX_FIELDS];
  sfc_node_source source[SFC_MAX_FIELDS];
  int auto_slot;  /* index into value[] taken from the pool, or -1 */
  int lease_slot; /* … leased from PostgreSQL (lease.c), or -1 */
} sfc_node;

SFC_INTERNAL sfc_status sfc_node_resolve(const sfc_layout *layout,
                                         const sfc_options *opts, sfc_node *out,
                                         sfc_error *err);
SFC_INTERNAL size_t sfc_node_text(const sfc_layout *layout,
                                  const sfc_node *node, char *buf, size_t cap);
/* The node values in their places of an ID. */
SFC_INTERNAL uint64_t sfc_node_bits(const sfc_layout *layout,
                                    const sfc_node *node);
/* Room for sfc_node_text: "datacenter=1,worker=3". */
#define SFC_NODE_TEXT_MAX (SFC_MAX_FIELDS * (SFC_NAME_MAX + 24))

#define SFC_CLOCK_VALUES (1u << SFC_MAX_CLOCK_BITS)
#define SFC_NEVER (-1)   /* a clock value never used */
#define SFC_PARKED_MAX 8 /* values rollback=switch holds at once, at most */

#include "saved.h"

#include "opaque.h"

#include "claim.h"
#include "fence.h"

/* The state_dir's part of a generator (state*.c, pool.c, keeper.c). */
typedef struct sfc_state {
  char *dir;                    /* as given */
  char *dir_real;               /* resolved */
  char stem[SFC_NODE_TEXT_MAX]; /* "worker-5" */
  char path[4096]; /* dir/stem: the files' names without ".lock"/".state" */
  sfc_dir folder;  /* every file is opened inside it, never by path */
  sfc_fd lock_fd;
  sfc_file_id state_id; /* the state file as last written */
  bool lost;            /* another process took the value: stopped for good */
  long holder; /* pid of the live holder found by the last refusal, or 0 */
  int64_t contended_since; /* monotonic us: our lock file held by another */
  int64_t reserve_ticks;
  sfc_thread keeper;
  bool keeper_running;
  bool stopping;
  sfc_cond wake;
  int64_t error_status; /* sfc_status of a failed write, 0 if none */
  char error_message[SFC_MESSAGE_MAX];
  /* Values left by rollback=switch, held until the clock passes their
   * marks. */
  unsigned parked;
  struct {
    sfc_fd lock_fd;
    sfc_claim claim;
    int64_t mark;   /* its state file's */
    int64_t issued; /* the mark the fast path could reach under it */
  } park[SFC_PARKED_MAX];
} sfc_state;

/* fork.c */
SFC_INTERNAL extern _Atomic uint64_t sfc_fork_generation;
/* Closes the older open generator of this process whose value `newer` was
 * refused, when it is the same layout and node values (a cell or a reload
 * run again); true when one was closed, else *err may name another holder
 * of newer's lock file. Called without `newer`'s lock. */
SFC_INTERNAL bool sfc_fork_take_over(struct sfc_generator *newer,
                                     sfc_error *err);

/* The hot path a generator takes (next.c's next_fast): none, the wall
 * clock read on every call, or the counter's deadline first. Wall clock or
 * counter, millisecond ticks and a sequence from 0. */
typedef enum sfc_fast {
  SFC_FAST_NONE = 0,
  SFC_FAST_WALL = 1,
  SFC_FAST_COUNTER = 2
} sfc_fast;

struct sfc_generator {
  _Alignas(64) _Atomic uint64_t word; /* last issued (time, clock, seq) */
  /* time_source=counter: until which count the word's tick is current, in
   * counter units since counter_base, << 16, | that tick's low 16 bits;
   * 0: none (counter.c). On the word's line: read with it. */
  _Atomic uint64_t until;
  /* Read-mostly fields below, on another cache line. */
  _Alignas(64) sfc_packing pack;
  int64_t epoch_us;
  int64_t unit_us;
  int64_t drift_ticks;
  int64_t max_wait_us;
  sfc_rollback rollback;
  bool random_start;
  sfc_fast fast;
  uint64_t seed;
  _Atomic uint64_t forks_seen; /* sfc_fork_generation at creation */
  /* No ID of a live call is issued past `mark`, the lower of the state
   * file's mark (state_mark) and the hand-over record's (handover_mark);
   * INT64_MAX: neither. */
  _Atomic int64_t mark;
  /* The same bound for the hot path: the first word past `mark`'s tick,
   * one comparison with no shift (UINT64_MAX: none). */
  _Atomic uint64_t mark_word;
  _Atomic int64_t state_mark; /* persisted high-water tick; INT64_MAX: none */
  sfc_time_source time_source;
  int64_t mono_offset_us; /* wall - monotonic, read once */
  unsigned counter_shift; /* counts per unit of `until`: 1 << shift */
  uint64_t counter_base;

  /* Counters touched outside the fast path only. */
  _Atomic uint64_t issued_closed; /* IDs of ticks already left */
  _Atomic uint64_t waits, borrowed, rollbacks, rollbacks_waited,
      rollbacks_refused, clock_bumps, node_switches;
  uint64_t phantom;              /* IDs counted for the initial, unused tick */
  _Atomic int64_t rollback_seen; /* last tick a rollback was counted at */
  _Atomic int64_t wanted_mark;   /* tick the hot path needs the mark to reach */
  _Atomic uint64_t counter_count; /* the counter and the monotonic clock */
  _Atomic int64_t counter_ns;     /* at the last deadline (counter.c) */

  /* The slow path: rollback, fork, state. */
  sfc_mutex lock;
  int64_t handover_mark; /* the record's, under lock; INT64_MAX: none */

  int64_t handover_reserve; /* ticks the record's mark is moved ahead */
  /* The word it started with: a call at a caller's own time that finds it
   * there starts the caller's own timeline instead (the hand-over is for
   * the clock's IDs): from nothing, or with a state_dir from what its files
   * said (`known_word`). */
  uint64_t start_word, known_word;
  /* What the start handed the clock's IDs (its word, its clock table), kept
   * when a caller's own timeline took the word over: the first call from
   * the clock goes on from it (sfc_clock_resume). `clock_handed` is set
   * until then; the marks read as reached meanwhile, so that every fast
   * path leaves that call to the general one. */
  uint64_t handed_word;
  int64_t handed_last[SFC_CLOCK_VALUES];
  _Atomic bool clock_handed;
  int64_t last[SFC_CLOCK_VALUES]; /* last tick issued under each clock value */
  sfc_layout layout;
  sfc_node node;
  sfc_opts opts; /* copy, without the pointers (not owned) */
  char *node_names[SFC_MAX_FIELDS];
  bool has_state;
  bool guarded;       /* the guard is on: the value is claimed */
  bool shared;        /* in a host's shared memory (sfc_generator_new_shared) */
  bool started;       /* loaded: its state word tells what was issued */
  _Atomic bool ready; /* created whole: may be taken over (fork.c) */
  /* Set under lock by a take-over that closes it: the closed error's. */
  char taken_over[SFC_MESSAGE_MAX / 2];
  _Atomic bool injected; /* issued at a caller's times (sfc_next_at …) */
  _Atomic bool closed;   /* sfc_generator_close: the word is the poison */
  uint64_t last_word;    /* once closed: the last ID issued, the real word */
  sfc_claim claim;       /* the node value's host-wide claim */
  char guard[2][SFC_MESSAGE_MAX];   /* the stat guard: guard[guard_at] */
  _Atomic unsigned guard_at;        /* written aside, then shown (a switch) */
  char warning[2][SFC_MESSAGE_MAX]; /* sfc_generator_warning_at's, by kind */
  const char *warning_kind[2];
  unsigned warnings;
  sfc_state state;
  sfc_fence fence; /* a leased value's bound (fence.c) */
  long pid;
  uint64_t creator_token; /* sfc_os_process_token of pid, at creation */
  struct sfc_generator *next_registered;
};

/* The word of a closed generator: time and sequence at their maximum, which
 * every path (next_fast, take, batches, a binding's rule) sends to the slow
 * path, whose every step answers the closed error. It keeps the clock and
 * node bits, which the keeper may still read until it stops. */
static inline uint64_t sfc_word_poison(const sfc_packing *p, uint64_t w) {
  return (w & p->keep_mask) | (p->time_max << p->time_shift) |
         (p->seq_max << p->seq_shift);
}
/* Whether sfc_generator_close has run: under g->lock, or after the slow
 * path's entry has seen it. */
static inline bool sfc_closed(const struct sfc_generator *g) {
  return atomic_load_explicit(&g->closed, memory_order_acquire);
}
/* The last ID issued: the state word, or once closed the word the poison
 * replaced (read by the closing thread, or under g->lock). */
static inline uint64_t sfc_word_last(const struct sfc_generator *g) {
  return sfc_closed(g) ? g->last_word : atomic_load(&g->word);
}

/* The generator's words of randomness: a pure function of the tick, no
 * shared random state on the hot path. The lower half keeps at least half
 * of each tick's sequence for use. */
static inline uint64_t sfc_splitmix64(uint64_t x) {
  x += UINT64_C(0x9E3779B97F4A7C15);
  x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
  return x ^ (x >> 31);
}
static inline uint64_t sfc_seq_start(const struct sfc_generator *g,
                                     uint64_t tick) {
  if (!g->random_start) return 0;
  return sfc_splitmix64(g->seed ^ tick) % ((g->pack.seq_max >> 1) + 1);
}

/* Internal answers of the slow path: the state word changed, look again;
 * or the slow path installed the ID in *next itself (a clock bump, a
 * switch). */
#define SFC_RETRY ((sfc_status)-1)
#define SFC_TAKEN ((sfc_status)-2)

/* A generator's first ID at a caller's own time (sfc_next_at), `seen` the
 * word it started with: the caller's timeline starts from nothing — no
 * tick used, clock value 0 — since the hand-over, judged on the clock,
 * cannot judge it; with a state_dir, from its files' mark and clock table
 * (which the keeper goes on writing). What the start handed the clock's
 * IDs is kept for them (sfc_clock_resume). SFC_OK (installed, or another
 * thread was first). */
SFC_INTERNAL sfc_status sfc_start_caller_timed(struct sfc_generator *g,
                                               uint64_t seen, sfc_error *err);
/* The first call from the clock after a caller's own timeline started:
 * the word no lower than what the start handed over (its tick and clock
 * value), the clock table no lower than the handed one. */
SFC_INTERNAL void sfc_clock_resume(struct sfc_generator *g);

/* word.c — the state word outside the hot path. */
SFC_INTERNAL void sfc_word_pack(const sfc_layout *layout, sfc_packing *out);
SFC_INTERNAL void sfc_word_set_node(struct sfc_generator *g);
SFC_INTERNAL void sfc_word_load(struct sfc_generator *g,
                                const sfc_saved *saved);
/* Installs `id` as the word, which was last seen as `seen` (under g->lock;
 * the fast path may still move it within its tick), and counts the IDs of
 * the tick it replaces. Returns the word replaced. */
SFC_INTERNAL uint64_t sfc_word_install(struct sfc_generator *g, uint64_t seen,
                                       uint64_t id);

/* guard.c — the claim of a generator's node value, with or without a
 * state_dir: taken at creation, handed over and let go at the end, dropped
 * in a forked child. sfc_guard_describe: the stat guard names the claim. */
SFC_INTERNAL void sfc_guard_describe(struct sfc_generator *g);
SFC_INTERNAL sfc_status sfc_guard_take(struct sfc_generator *g, sfc_claim *c,
                                       uint64_t bits, sfc_saved *saved,
                                       bool *held, sfc_holder *who,
                                       sfc_error *err);
SFC_INTERNAL sfc_status sfc_guard_settle(struct sfc_generator *g,
                                         sfc_error *err);
/* The first record written ahead of any ID (creation, a fresh pool value). */
SFC_INTERNAL sfc_status sfc_guard_start(struct sfc_generator *g,
                                        sfc_error *err);
/* Moves the record's mark past `tick` (under g->lock): the record written
 * before the ID that needs it. */
SFC_INTERNAL sfc_status sfc_guard_advance(struct sfc_generator *g, int64_t tick,
                                          sfc_error *err);
/* Writes the record as the slow path is about to leave `old_clock` for the
 * word's new clock value at `tick` (under g->lock): `old_clock` in use as
 * far as `limit` (the mark fast paths may still reach under it). */
SFC_INTERNAL sfc_status sfc_guard_move(struct sfc_generator *g,
                                       uint64_t old_clock, int64_t limit,
                                       uint64_t clock, int64_t tick,
                                       sfc_error *err);
SFC_INTERNAL void sfc_guard_release(struct sfc_generator *g);
/* What was issued under the value (the word, and each clock value's last
 * tick): what a successor starts after. */
SFC_INTERNAL void sfc_generator_issued(const struct sfc_generator *g,
                                       sfc_saved *out);
SFC_INTERNAL void sfc_guard_drop(struct sfc_generator *g);
/* The hot path's mark: the lower of the state file's and the record's. */
SFC_INTERNAL void sfc_mark_update(struct sfc_generator *g);

/* state_names.c — a node value's files in the state_dir. */
typedef struct sfc_file_name {
  char name[sizeof((sfc_state *)0)->stem + 16]; /* in the folder */
  char path[4200];                              /* for messages */
} sfc_file_name;
/* Names the current node value's files ("worker-5"). */
SFC_INTERNAL void sfc_state_name_value(struct sfc_generator *g);
SFC_INTERNAL void sfc_state_file_name(const struct sfc_generator *g,
                                      const char *suffix, sfc_file_name *out);
/* The folder's absolute path (as given when it cannot be resolved). */
SFC_INTERNAL const char *sfc_state_dir_path(const struct sfc_generator *g);
/* The clock's tick, 0 before the epoch. */
SFC_INTERNAL int64_t sfc_state_now_tick(const struct sfc_generator *g);

/* state_file.c — the state file: mark, clock value, clock table. */
SFC_INTERNAL sfc_status sfc_state_file_write(struct sfc_generator *g,
                                             int64_t mark, uint64_t clock,
                                             sfc_error *err);
SFC_INTERNAL sfc_status sfc_state_file_write_at(struct sfc_generator *g,
                                                const sfc_dir *dir,
                                                int64_t mark, uint64_t clock,
                                                sfc_error *err);
/* Cleared, then read; a missing file is a new node value (SFC_OK). */
SFC_INTERNAL sfc_status sfc_state_file_read(const struct sfc_generator *g,
                                            sfc_saved *saved, sfc_error *err);

/* state_lock.c — the lock file. SFC_OK and *held: a live process has the
 * value (its pid, if it wrote one, in g->state.holder); else the lock is
 * *lock_fd. sfc_state_refuse_held: the refusal that names that process. */
SFC_INTERNAL sfc_status sfc_state_lock_at(struct sfc_generator *g,
                                          const sfc_dir *dir, sfc_fd *lock_fd,
                                          bool *held, sfc_error *err);
SFC_INTERNAL sfc_status sfc_state_refuse_held(struct sfc_generator *g,
                                              sfc_error *err);

/* pool.c — taking and letting go of values in the state_dir. */
/* Takes the static value or a free one of the pool: claimed, locked, its
 * state in *saved and a new mark written. */
SFC_INTERNAL sfc_status sfc_pool_acquire(struct sfc_generator *g,
                                         sfc_saved *saved, sfc_error *err);
/* Parks the value in use and takes another whose IDs are all behind
 * `tick`, its state in *saved and *mark written (under g->lock).
 * SFC_CLOCK_MOVED_BACKWARDS when none can be taken; the value in use is
 * kept then. */
SFC_INTERNAL sfc_status sfc_pool_switch(struct sfc_generator *g, int64_t tick,
                                        sfc_saved *saved, int64_t *mark,
                                        sfc_error *err);
/* Lets go of the parked values the clock has passed. */
SFC_INTERNAL void sfc_pool_unpark(struct sfc_generator *g);
/* Lets go of the value in use and the parked ones (in a forked child, the
 * parent's: only our copies are closed). */
SFC_INTERNAL void sfc_pool_release(struct sfc_generator *g);
SFC_INTERNAL void sfc_pool_drop_parked(struct sfc_generator *g);

/* keeper.c — the keeper thread: the mark ahead, the files still ours. */
SFC_INTERNAL sfc_status sfc_keeper_start(struct sfc_generator *g,
                                         sfc_error *err);
/* Stops it; `clean`: writes the exact last tick. */
SFC_INTERNAL void sfc_keeper_stop(struct sfc_generator *g, bool clean);
/* The keeper's last failure (a write, the value lost), or SFC_OK. */
SFC_INTERNAL sfc_status sfc_keeper_failed(const struct sfc_generator *g,
                                          sfc_error *err);
/* The hot path needs the marks at `tick` (a live call: the record's too):
 * SFC_RETRY when they are there (the record's moved now, if need be), else
 * asks the keeper and SFC_WAIT. */
SFC_INTERNAL sfc_status sfc_keeper_mark_reached(struct sfc_generator *g,
                                                uint64_t tick, bool live,
                                                int64_t *wait_us,
                                                sfc_error *err);

/* state.c — the state_dir from creation to the end. */
SFC_INTERNAL sfc_status sfc_state_open(struct sfc_generator *g,
                                       const sfc_options *opts,
                                       sfc_saved *saved, sfc_error *err);
/* Lets go of its values and folder (under g->lock; the keeper stopped). */
SFC_INTERNAL void sfc_state_close(struct sfc_generator *g);
/* In a forked child: no keeper there, the parent's files left to it. */
SFC_INTERNAL void sfc_state_after_fork(struct sfc_generator *g);

/* rollback.c — the slow path and the strategies. */
SFC_INTERNAL const char *sfc_rollback_name(sfc_rollback rollback);
/* The strategy in force for `asked` (default: clock or wait), or
 * SFC_INVALID_ARGUMENT when the layout or the options lack what it needs
 * (`pooled`: a node field set to auto and a state_dir). */
SFC_INTERNAL sfc_status sfc_rollback_resolve(sfc_rollback asked,
                                             const sfc_layout *layout,
                                             bool pooled, sfc_rollback *out,
                                             sfc_error *err);
/* Called with the state word as last seen. Returns SFC_OK with *next set
 * to the word to install, SFC_TAKEN (installed), SFC_RETRY, SFC_WAIT, or an
 * error. */
SFC_INTERNAL sfc_status sfc_slow_path(struct sfc_generator *g, int64_t now_us,
                                      int64_t tick, uint64_t seen,
                                      uint64_t *next, int64_t *wait_us,
                                      sfc_error *err);
/* Tests only: called at named points (the slow path, the claim's settle;
 * NULL otherwise), so that a test can stall or look exactly there. */
SFC_INTERNAL extern void (*sfc_test_hook)(const char *point);

/* fork.c — fork detection. */
/* What a close lets go of after its poison (close.c), and a creation that
 * failed: the keeper stopped, the state or the claim released. */
SFC_INTERNAL void sfc_generator_let_go(struct sfc_generator *g, bool creator);
SFC_INTERNAL void sfc_fork_register(struct sfc_generator *g);
SFC_INTERNAL void sfc_fork_unregister(struct sfc_generator *g);
/* A forked child's first call: a fresh pool value or SFC_GENERATOR_FORKED. */
SFC_INTERNAL sfc_status sfc_check_fork(struct sfc_generator *g, sfc_error *err);

#endif
