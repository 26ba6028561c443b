/* A simulated process's side: its threads (coroutines in one real
 * process), its system calls to the simulated kernel, and fork. */
#ifndef SIM_RUNTIME_H
#define SIM_RUNTIME_H

#include "proto.h"

#include <stdbool.h>
#include <stddef.h>

/* The process's pid, uid and host name in the simulation. */
extern long sim_pid, sim_uid;
extern char sim_hostname[64];

/* Sends `req` (its op and arguments set) from the running thread and waits
 * for the kernel to run the thread again: the answer. */
const sim_reply *sim_call(sim_request *req);
/* The same for a call with no arguments but a[0]. */
const sim_reply *sim_call1(int op, int64_t a0);
/* A request to fill: op set, the rest zeroed. */
void sim_request_init(sim_request *req, int op);

/* pthread_atfork's registry, and fork() with it: 0 in the child, the
 * child's pid in the parent. */
void sim_atfork(void (*prepare)(void), void (*parent)(void),
                void (*child)(void));
long sim_fork(void);

/* Runs the process: connected to the kernel on `sock`, its first thread
 * `tid` starts the driver. Never returns. */
void sim_process_main(int sock, long pid, long uid, const char *hostname,
                      long tid);
/* The driver's thread function (driver.c). */
void *sim_driver_thread(void *arg);
/* A new thread of this process running fn(arg). */
void sim_spawn(void *(*fn)(void *), void *arg);
/* Registers a thread the kernel created for `fn(arg)`. */
void sim_thread_register(int64_t tid, void *(*fn)(void *), void *arg);
/* A signal handler the kernel asks a thread to run (driver.c). */
void sim_driver_handler(int64_t which, int64_t slot);

#endif
