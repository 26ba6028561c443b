/* The simulator's protocol: what a simulated process asks of the simulated
 * kernel (a system call), and what the kernel answers. Each simulated
 * process is a real process of its own, its threads coroutines in it; the
 * kernel is the controlling process, and only one thread of all runs at a
 * time: a system call hands control to the kernel, which decides — from the
 * seed — which thread goes on next. */
#ifndef SIM_PROTO_H
#define SIM_PROTO_H

#include <stdint.h>

#define SIM_DATA_MAX 9000
#define SIM_STR_MAX 200

typedef enum sim_op {
  /* Time and threads. */
  SYS_CLOCK = 1,       /* a[0]: 0 wall, 1 monotonic, 2 counter -> v[0] */
  SYS_SLEEP,           /* a[0]: monotonic deadline, us */
  SYS_RANDOM,          /* a[0]: bytes -> data */
  SYS_COUNTER_TRUSTED, /* -> ret */
  SYS_THREAD_CREATE,   /* -> ret: the new thread's id */
  SYS_THREAD_EXIT,
  SYS_JOIN,         /* a[0]: thread */
  SYS_MUTEX_LOCK,   /* a[0], a[1]: the mutex's key -> ret: 0, or EOWNERDEAD */
  SYS_MUTEX_UNLOCK, /* a[0], a[1] */
  SYS_MUTEX_SHARED, /* -> ret: a new key for a process-shared mutex */
  SYS_COND_WAIT,    /* a[0], a[1]: the cond; a[2], a[3] the mutex; a[4] us */
  SYS_COND_SIGNAL,  /* a[0], a[1] */
  SYS_YIELD,        /* a spin-wait's pause */
  /* Files: ret is a result or -errno. */
  SYS_OPEN,     /* a[0] dirfd (-1: path from the root), a[1] flags, a[2]
                   mode; s[0] name -> ret fd */
  SYS_MKDIR,    /* s[0] path */
  SYS_STAT,     /* a[0] fd, or -1 with s[0] a path, or dirfd with s[0] a
                   name; a[1] 1: follow no link -> v: dev ino mode uid nlink
                   size */
  SYS_CLOSE,    /* a[0] fd */
  SYS_FLOCK,    /* a[0] fd, a[1] 1 lock, 2 shared lock, 0 unlock */
  SYS_PWRITE,   /* a[0] fd, a[1] offset, data */
  SYS_PREAD,    /* a[0] fd, a[1] offset, a[2] bytes -> data */
  SYS_TRUNCATE, /* a[0] fd, a[1] length */
  SYS_FSYNC,    /* a[0] fd */
  SYS_UNLINK,   /* a[0] dirfd, s[0] name */
  SYS_RENAME,   /* a[0] dirfd, s[0] from, s[1] to */
  SYS_READDIR,  /* a[0] dirfd -> data: names, each NUL-terminated */
  SYS_REALPATH, /* s[0] -> str */
  /* The claim's abstract socket (Linux). */
  SYS_BIND,      /* s[0] name -> ret fd; -EADDRINUSE */
  SYS_PEERCRED,  /* s[0] name -> ret 0 and v[0] pid, v[1] uid; or -errno */
  SYS_UNIX_LIST, /* -> data: every bound name of the network namespace */
  /* The driver. */
  SYS_COMMAND, /* an idle user thread asks for work -> the command */
  SYS_REPORT,  /* a[0] status, a[1] count, data: IDs then the message */
  SYS_FORK,    /* -> ret: the child's pid (the parent); see sim_fork */
  SYS_CHILD,   /* the child of a fork says it runs: a[0] its real pid */
  SYS_HANDLER_DONE,
  SYS_EXIT,
  SYS_NOTE,       /* s[0]: a line for the trace */
  SYS_PROC_TOKEN, /* a[0] pid -> ret: a token of it, 0 if not alive */
  SYS_LEASE,      /* a statement to the lease database (leasedb.h): a[0]
                     the step, a[1] parameters, data them -> ret, v */
} sim_op;

typedef struct sim_request {
  int32_t tid;
  int32_t op;
  int64_t a[6];
  char s[2][SIM_STR_MAX];
  uint32_t len;
  char data[SIM_DATA_MAX];
} sim_request;

/* What the kernel sends a process: run a thread (with the answer to its
 * call), start one, run a signal handler on it first, or fork. */
typedef enum sim_directive {
  RUN_THREAD = 1, /* tid, with ret/v/data the answer to its call */
  START_THREAD,   /* tid: run its function (a new thread) */
  RUN_HANDLER,    /* tid: run the handler a[0] on it, then wait again */
  DO_FORK,        /* tid forks: the child's pid in ret */
} sim_directive;

typedef struct sim_reply {
  int32_t directive;
  int32_t tid;
  int64_t ret;
  int64_t v[6];
  char str[SIM_STR_MAX];
  uint32_t len;
  char data[SIM_DATA_MAX];
} sim_reply;

/* Commands to a user thread (the answer to SYS_COMMAND): v[0] the kind, v[1]
 * the generator slot, v[2] a count or a time, v[3] the shared flag; data:
 * "spec\nepoch\nnode\noptions" for CMD_CREATE. */
typedef enum sim_cmd {
  CMD_CREATE = 1, /* create a generator in the slot */
  CMD_NEXT,       /* v[2] IDs, one call each (sfc_next) */
  CMD_NEXT_NOW,   /* one sfc_next_now, waiting as a binding would */
  CMD_BATCH,      /* sfc_next_ids of v[2] */
  CMD_NEXT_AT,    /* sfc_next_at at v[2] us */
  CMD_CLOSE,      /* sfc_generator_close */
  CMD_FREE,       /* sfc_generator_free */
  CMD_FORK,       /* fork(): the child reports too */
  CMD_EXIT,       /* exit without closing */
  CMD_SPAWN,      /* another user thread */
  CMD_FORGE,      /* rewrite a record file (an attacker): str its path */
  CMD_QUIT,       /* the thread ends (the others go on) */
  CMD_TRICKLE,    /* v[2] IDs, one call each, v[3] µs apart (a paced
                     client): a report of no IDs marks each call's start */
} sim_cmd;

/* Signal handlers a kernel can run on a thread (RUN_HANDLER a[0]). */
typedef enum sim_handler {
  HANDLER_CLOSE = 1, /* closes the generator in slot v[1] */
} sim_handler;

#endif
