/* A simulated process: one real process whose threads are coroutines. The
 * kernel runs exactly one thread of all processes at a time; a thread runs
 * until its next system call, which hands control back to the kernel. */
#define _GNU_SOURCE
#include "runtime.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <ucontext.h>
#include <unistd.h>

#define STACK_SIZE (256 * 1024)
#define THREADS_MAX 16

long sim_pid, sim_uid;
char sim_hostname[64];
static int sock = -1;

typedef struct thread {
  int64_t tid; /* 0: free slot */
  ucontext_t ctx;
  void *stack;
  void *(*fn)(void *);
  void *arg;
  sim_reply reply;
} thread;

static thread threads[THREADS_MAX];
static thread *current;
static ucontext_t main_ctx;

static thread *find(int64_t tid) {
  for (int i = 0; i < THREADS_MAX; i++)
    if (threads[i].tid == tid) return &threads[i];
  return NULL;
}

void sim_thread_register(int64_t tid, void *(*fn)(void *), void *arg) {
  for (int i = 0; i < THREADS_MAX; i++)
    if (threads[i].tid == 0) {
      threads[i].tid = tid;
      threads[i].fn = fn;
      threads[i].arg = arg;
      threads[i].stack = NULL;
      return;
    }
  fprintf(stderr, "sim: too many threads in one process\n");
  _exit(3);
}

void sim_spawn(void *(*fn)(void *), void *arg) {
  const sim_reply *r = sim_call1(SYS_THREAD_CREATE, 0);
  if (r->ret > 0) sim_thread_register(r->ret, fn, arg);
}

static void send_request(sim_request *req) {
  size_t n = offsetof(sim_request, data) + req->len;
  if (send(sock, req, n, 0) != (ssize_t)n) _exit(4); /* the kernel is gone */
}

void sim_request_init(sim_request *req, int op) {
  memset(req, 0, offsetof(sim_request, data));
  req->op = op;
}

const sim_reply *sim_call(sim_request *req) {
  thread *self = current;
  req->tid = (int32_t)self->tid;
  send_request(req);
  for (;;) {
    swapcontext(&self->ctx, &main_ctx);
    if (self->reply.directive != RUN_HANDLER) return &self->reply;
    /* A signal: its handler runs on this thread, inside the call. */
    sim_driver_handler(self->reply.v[0], self->reply.v[1]);
    sim_request done;
    sim_request_init(&done, SYS_HANDLER_DONE);
    done.tid = (int32_t)self->tid;
    send_request(&done);
  }
}

const sim_reply *sim_call1(int op, int64_t a0) {
  sim_request req;
  sim_request_init(&req, op);
  req.a[0] = a0;
  return sim_call(&req);
}

static void trampoline(void) {
  thread *self = current;
  self->fn(self->arg);
  sim_call1(SYS_THREAD_EXIT, 0);
  _exit(5); /* never run again */
}

static void start(thread *t) {
  t->stack = malloc(STACK_SIZE);
  if (!t->stack) _exit(6);
  getcontext(&t->ctx);
  t->ctx.uc_stack.ss_sp = t->stack;
  t->ctx.uc_stack.ss_size = STACK_SIZE;
  t->ctx.uc_link = NULL;
  makecontext(&t->ctx, trampoline, 0);
}

/* pthread_atfork's registry: prepare in reverse order, the others in
 * order. */
#define FORK_HANDLERS 8
static struct {
  void (*prepare)(void), (*parent)(void), (*child)(void);
} handlers[FORK_HANDLERS];
static int handler_count;

void sim_atfork(void (*prepare)(void), void (*parent)(void),
                void (*child)(void)) {
  if (handler_count == FORK_HANDLERS) _exit(7);
  handlers[handler_count].prepare = prepare;
  handlers[handler_count].parent = parent;
  handlers[handler_count].child = child;
  handler_count++;
}

static int connect_kernel(void) {
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  const char *name = getenv("SIM_KERNEL_SOCKET");
  if (fd < 0 || !name) _exit(8);
  snprintf(addr.sun_path + 1, sizeof addr.sun_path - 1, "%s", name);
  socklen_t len =
      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
  if (connect(fd, (struct sockaddr *)&addr, len) != 0) _exit(9);
  return fd;
}

long sim_fork(void) {
  for (int i = handler_count - 1; i >= 0; i--)
    if (handlers[i].prepare) handlers[i].prepare();
  sim_request req;
  sim_request_init(&req, SYS_FORK);
  const sim_reply *r = sim_call(&req);
  if (r->directive != DO_FORK) _exit(10);
  const long child = (long)r->ret;
  const int64_t child_tid = r->v[0];
  pid_t real = fork();
  if (real < 0) _exit(11);
  if (real == 0) {
    /* Only the forking thread lives on in the child. */
    close(sock);
    sock = connect_kernel();
    for (int i = 0; i < THREADS_MAX; i++)
      if (&threads[i] != current) threads[i].tid = 0;
    current->tid = child_tid;
    sim_pid = child;
    sim_request hello;
    sim_request_init(&hello, SYS_CHILD);
    hello.a[0] = getpid();
    sim_call(&hello);
    for (int i = 0; i < handler_count; i++)
      if (handlers[i].child) handlers[i].child();
    return 0;
  }
  sim_request done;
  sim_request_init(&done, SYS_CHILD);
  done.a[0] = real;
  sim_call(&done);
  for (int i = 0; i < handler_count; i++)
    if (handlers[i].parent) handlers[i].parent();
  return child;
}

#ifdef SIM_COVERAGE
void __gcov_dump(void);
static void dump_and_exit(int sig) {
  (void)sig;
  __gcov_dump();
  _exit(0);
}
#endif

void sim_process_main(int fd, long pid, long uid, const char *hostname,
                      long tid) {
#ifdef SIM_COVERAGE
  signal(SIGUSR2, dump_and_exit);
#endif
  sock = fd;
  sim_pid = pid;
  sim_uid = uid;
  snprintf(sim_hostname, sizeof sim_hostname, "%s", hostname);
  sim_thread_register(tid, sim_driver_thread, NULL);
  static sim_reply msg;
  for (;;) {
    ssize_t n = recv(sock, &msg, sizeof msg, 0);
    if (n <= 0) _exit(0); /* the kernel let go of us */
    thread *t = find(msg.tid);
    if (!t) _exit(12);
    current = t;
    if (msg.directive == START_THREAD) {
      start(t);
    } else {
      t->reply = msg;
    }
    swapcontext(&main_ctx, &t->ctx);
  }
}
