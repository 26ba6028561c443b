/* The host-wide name of a claim on Windows: a named section (a file mapping
 * backed by the paging file) "Global\snowflake-c-<hex>", or, for a process
 * that may not create global objects (SeCreateGlobalPrivilege: services and
 * administrators have it), "Local\snowflake-c-<hex>" once no global one
 * exists. A named kernel object lives while a handle to it is open — the
 * system closes them when the process ends — and no folder, environment
 * variable or cleaner reaches it. Creating it is atomic: the one creator
 * holds the claim; anyone else who opens it (ERROR_ALREADY_EXISTS) or may
 * not (ERROR_ACCESS_DENIED: another user's) is refused, and lets go of it
 * at once. The section holds the holder's pid, for messages. Limits, as
 * documented: a Local name is seen by the processes of one session only,
 * so two unprivileged processes in two sessions (two users logged on at
 * once) do not meet, and a privileged process that creates the global
 * name does not see a local one. */
#include "internal.h"

#if defined(_WIN32)

#include <stdio.h>

#define SECTION_SIZE 64

/* "<scope>\\snowflake-c-<hex>": ASCII, widened a character at a time. */
static void name_in(const char *scope, const char *hex, wchar_t *out,
                    size_t cap) {
  char text[96];
  int n = snprintf(text, sizeof text, "%s\\snowflake-c-%s", scope, hex);
  size_t i = 0;
  for (; n > 0 && i < (size_t)n && i + 1 < cap; i++)
    out[i] = (wchar_t)(unsigned char)text[i];
  out[i] = L'\0';
}

static long pid_of(HANDLE section) {
  long pid = 0;
  const long *view = MapViewOfFile(section, FILE_MAP_READ, 0, 0, sizeof pid);
  if (view) {
    pid = *view;
    UnmapViewOfFile(view);
  }
  return pid;
}

static sfc_status trouble(sfc_error *err, const char *scope, const char *hex,
                          DWORD code) {
  return sfc_fail(err, SFC_STATE_ERROR,
                  "cannot take the host-wide claim %s\\snowflake-c-%s "
                  "(Windows error %lu)",
                  scope, hex, (unsigned long)code);
}

/* 1: created (held by us), 0: held by another, -1: cannot say (*code). */
static int create(const wchar_t *name, HANDLE *out, sfc_holder *who,
                  DWORD *code) {
  HANDLE h = CreateFileMappingW(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0,
                                SECTION_SIZE, name);
  *code = GetLastError();
  if (h && *code != ERROR_ALREADY_EXISTS) {
    long *view = MapViewOfFile(h, FILE_MAP_WRITE, 0, 0, sizeof(long));
    if (view) {
      *view = (long)GetCurrentProcessId();
      UnmapViewOfFile(view);
    }
    *out = h;
    return 1;
  }
  if (h) { /* ERROR_ALREADY_EXISTS: held */
    who->pid = pid_of(h);
    CloseHandle(h);
    return 0;
  }
  if (*code != ERROR_ACCESS_DENIED) return -1;
  /* Denied: another user's object, or no right to create global ones. */
  h = OpenFileMappingW(FILE_MAP_READ, FALSE, name);
  DWORD e = GetLastError();
  if (h) {
    who->pid = pid_of(h);
    CloseHandle(h);
    return 0;
  }
  if (e == ERROR_ACCESS_DENIED) return 0; /* another user's: held */
  *code = e;
  return -1;
}

/* Every claim of this system lives beside its hand-over record, which
 * the records folder shows. */
sfc_status sfc_os_claim_each(void (*fn)(void *ctx, const char *hex), void *ctx,
                             sfc_error *err) {
  (void)fn;
  (void)ctx;
  (void)err;
  return SFC_OK;
}

sfc_status sfc_os_claim_take(const char *hex, sfc_fd *out, char *where,
                             size_t cap, bool *held, sfc_holder *who,
                             sfc_error *err) {
  wchar_t name[96];
  HANDLE h = NULL;
  DWORD code;
  const char *scope = "Global";
  *held = false;
  name_in(scope, hex, name, sizeof name / sizeof name[0]);
  int got = create(name, &h, who, &code);
  if (got < 0 && code == ERROR_FILE_NOT_FOUND) {
    /* No global object, and no right to create one: the session's. */
    scope = "Local";
    name_in(scope, hex, name, sizeof name / sizeof name[0]);
    got = create(name, &h, who, &code);
  }
  if (got < 0) return trouble(err, scope, hex, code);
  snprintf(where, cap, "%s\\snowflake-c-%s", scope, hex);
  if (got == 0) {
    *held = true;
    return SFC_OK;
  }
  *out = (sfc_fd)h;
  return SFC_OK;
}

bool sfc_os_claim_holder(const char *hex, sfc_holder *who) {
  static const char *const scopes[] = {"Global", "Local"};
  for (int i = 0; i < 2; i++) {
    wchar_t name[96];
    name_in(scopes[i], hex, name, sizeof name / sizeof name[0]);
    HANDLE h = OpenFileMappingW(FILE_MAP_READ, FALSE, name);
    if (!h) continue;
    who->pid = pid_of(h);
    CloseHandle(h);
    return who->pid > 0;
  }
  return false;
}

void sfc_os_claim_release(const char *hex, sfc_fd fd) {
  (void)hex;
  sfc_fd_close(fd);
}

#else
typedef int sfc_claim_os_windows_unused; /* nothing to compile here */
#endif
