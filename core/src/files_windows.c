/* The state folder's files on Windows. The folder and every lock file are
 * held open without FILE_SHARE_DELETE, so that while they are held no
 * cleaner can delete or rename them; files are opened with
 * FILE_FLAG_OPEN_REPARSE_POINT and refused when they are reparse points
 * (symbolic links, junctions). Locks are LockFileEx, which Windows releases
 * when the handle is closed or the process ends; the state file is replaced
 * with MoveFileExW(MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH).
 * Paths are UTF-8 and may be long (\\?\ prefixed, as the folder's final
 * path is). */
#include "internal.h"

#if defined(_WIN32)

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WPATH_MAX 4200

static sfc_status win_error(sfc_error *err, const char *what, const char *path,
                            DWORD code) {
  char text[160] = "";
  DWORD n = FormatMessageA(
      FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code,
      MAKELANGID(LANG_ENGLISH, SUBLANG_DEFAULT), text, sizeof text, NULL);
  while (n && (text[n - 1] == '\n' || text[n - 1] == '\r' ||
               text[n - 1] == ' ' || text[n - 1] == '.'))
    text[--n] = '\0';
  return sfc_fail(err, SFC_STATE_ERROR, "%s %s: %s (Windows error %lu)", what,
                  path, n ? text : "error", (unsigned long)code);
}

static bool widen(const char *utf8, wchar_t *out, size_t cap) {
  int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, out,
                              (int)cap);
  return n > 0;
}

/* The folder's own path followed by "\name". */
static bool path_in(const sfc_dir *dir, const char *name, wchar_t *out,
                    size_t cap) {
  DWORD n = GetFinalPathNameByHandleW((HANDLE)dir->fd, out, (DWORD)cap,
                                      FILE_NAME_NORMALIZED);
  if (n == 0 || n + 2 >= cap) return false;
  out[n++] = L'\\';
  return widen(name, out + n, cap - n);
}

static sfc_file_id id_of(const BY_HANDLE_FILE_INFORMATION *info) {
  return (sfc_file_id){info->dwVolumeSerialNumber,
                       ((uint64_t)info->nFileIndexHigh << 32) |
                           info->nFileIndexLow};
}

/* Opens without following a reparse point; for reading its attributes
 * unless `access` asks for more. */
static HANDLE open_w(const wchar_t *path, DWORD access, DWORD share,
                     DWORD disposition, DWORD flags) {
  return CreateFileW(path, access, share, NULL, disposition,
                     flags | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
}

#define SHARE_ALL (FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)

/* What a handle opened in the folder is: a regular file, or else a message
 * for it. */
static sfc_status check_regular(HANDLE h, const char *path,
                                BY_HANDLE_FILE_INFORMATION *info,
                                sfc_error *err) {
  if (!GetFileInformationByHandle(h, info))
    return win_error(err, "cannot read the attributes of", path,
                     GetLastError());
  const char *kind = NULL;
  if (info->dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
    kind = "a symbolic link or junction";
  else if (info->dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
    kind = "a directory";
  else if (GetFileType(h) != FILE_TYPE_DISK)
    kind = "a device";
  if (!kind) return SFC_OK;
  return sfc_fail(err, SFC_STATE_ERROR,
                  "%s is %s, not a regular file: a state_dir holds only the "
                  "regular files snowflake-c writes there (links are never "
                  "followed); remove it",
                  path, kind);
}

sfc_status sfc_dir_open(const char *path, sfc_dir *out, sfc_error *err) {
  wchar_t w[WPATH_MAX];
  if (!widen(path, w, WPATH_MAX))
    return sfc_fail(err, SFC_STATE_ERROR,
                    "state_dir %s is not valid UTF-8 or too long", path);
  if (!CreateDirectoryW(w, NULL) && GetLastError() != ERROR_ALREADY_EXISTS)
    return win_error(err, "cannot create state directory", path,
                     GetLastError());
  /* No FILE_SHARE_DELETE: the folder cannot be removed or renamed while it
   * is held. */
  HANDLE h = open_w(w, FILE_LIST_DIRECTORY | FILE_READ_ATTRIBUTES,
                    FILE_SHARE_READ | FILE_SHARE_WRITE, OPEN_EXISTING,
                    FILE_FLAG_BACKUP_SEMANTICS);
  if (h == INVALID_HANDLE_VALUE)
    return win_error(err, "cannot open state directory", path, GetLastError());
  BY_HANDLE_FILE_INFORMATION info;
  const char *refusal = NULL;
  if (!GetFileInformationByHandle(h, &info)) {
    DWORD e = GetLastError();
    CloseHandle(h);
    return win_error(err, "cannot read the attributes of", path, e);
  }
  if (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
    refusal = "is a symbolic link or junction: give the folder's own path "
              "(links are never followed in a state_dir)";
  else if (!(info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY))
    refusal = "is not a directory";
  if (refusal) {
    CloseHandle(h);
    return sfc_fail(err, SFC_STATE_ERROR, "state_dir %s %s", path, refusal);
  }
  out->fd = (sfc_fd)h;
  out->id = id_of(&info);
  out->shared = false;
  return SFC_OK;
}

static bool id_of_path(const wchar_t *w, DWORD flags, sfc_file_id *id,
                       DWORD *attributes) {
  HANDLE h = open_w(w, FILE_READ_ATTRIBUTES, SHARE_ALL, OPEN_EXISTING, flags);
  if (h == INVALID_HANDLE_VALUE) return false;
  BY_HANDLE_FILE_INFORMATION info;
  bool ok = GetFileInformationByHandle(h, &info);
  CloseHandle(h);
  if (ok) {
    *id = id_of(&info);
    if (attributes) *attributes = info.dwFileAttributes;
  }
  return ok;
}

/* The host-wide folder of hand-over records: ProgramData on the system
 * drive, found without the environment (no variable moves it). Its ACL
 * lets every user create files there that other users may read but not
 * replace or remove: each user's records stay its own. */
sfc_status sfc_records_dir_open(sfc_dir *out, char *path, size_t cap,
                                sfc_error *err) {
  wchar_t windows[MAX_PATH + 1];
  UINT n = GetSystemWindowsDirectoryW(windows, MAX_PATH + 1);
  if (n < 3 || n > MAX_PATH || windows[1] != L':')
    return win_error(err, "cannot find the system drive for",
                     "the claim's hand-over records", GetLastError());
  snprintf(path, cap, "%c:\\ProgramData", (char)windows[0]);
  static const wchar_t rest[] = L"ProgramData";
  wchar_t w[3 + sizeof rest / sizeof rest[0]] = {windows[0], L':', L'\\'};
  memcpy(w + 3, rest, sizeof rest);
  HANDLE h = open_w(w, FILE_LIST_DIRECTORY | FILE_READ_ATTRIBUTES, SHARE_ALL,
                    OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS);
  if (h == INVALID_HANDLE_VALUE)
    return win_error(err, "cannot open the folder of hand-over records", path,
                     GetLastError());
  BY_HANDLE_FILE_INFORMATION info;
  if (!GetFileInformationByHandle(h, &info) ||
      (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) ||
      !(info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
    CloseHandle(h);
    return sfc_fail(err, SFC_STATE_ERROR,
                    "%s is not a folder: the claim's hand-over records need "
                    "it; or turn the guard off",
                    path);
  }
  out->fd = (sfc_fd)h;
  out->id = id_of(&info);
  out->shared = true;
  return SFC_OK;
}

sfc_status sfc_dir_each(const sfc_dir *dir, const char *prefix,
                        void (*fn)(void *ctx, const char *name), void *ctx,
                        sfc_error *err) {
  wchar_t pattern[WPATH_MAX];
  char wanted[256];
  snprintf(wanted, sizeof wanted, "%s*", prefix);
  if (!path_in(dir, wanted, pattern, WPATH_MAX))
    return win_error(err, "cannot list", "the folder of hand-over records",
                     GetLastError());
  WIN32_FIND_DATAW found;
  HANDLE h = FindFirstFileW(pattern, &found);
  if (h == INVALID_HANDLE_VALUE) {
    DWORD e = GetLastError();
    if (e == ERROR_FILE_NOT_FOUND) return SFC_OK;
    return win_error(err, "cannot list", "the folder of hand-over records", e);
  }
  do {
    char name[MAX_PATH * 3];
    if (WideCharToMultiByte(CP_UTF8, 0, found.cFileName, -1, name,
                            (int)sizeof name, NULL, NULL) > 0 &&
        strncmp(name, prefix, strlen(prefix)) == 0)
      fn(ctx, name);
  } while (FindNextFileW(h, &found));
  FindClose(h);
  return SFC_OK;
}

/* "s" and a hash of the user's SID: one user's records apart from
 * another's. */
void sfc_os_user_tag(char *buf, size_t cap) {
  HANDLE token;
  unsigned char data[256];
  DWORD len = 0;
  uint64_t h = SFC_FNV_OFFSET;
  if (OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token)) {
    if (GetTokenInformation(token, TokenUser, data, sizeof data, &len)) {
      PSID sid = ((TOKEN_USER *)data)->User.Sid;
      h = sfc_fnv1a(h, (const char *)sid, GetLengthSid(sid));
    }
    CloseHandle(token);
  }
  snprintf(buf, cap, "s%016llx", (unsigned long long)h);
}

bool sfc_dir_is(const char *path, sfc_file_id id) {
  wchar_t w[WPATH_MAX];
  sfc_file_id now;
  DWORD attributes;
  return widen(path, w, WPATH_MAX) &&
         id_of_path(w, FILE_FLAG_BACKUP_SEMANTICS, &now, &attributes) &&
         !(attributes & FILE_ATTRIBUTE_REPARSE_POINT) && now.dev == id.dev &&
         now.ino == id.ino;
}

char *sfc_path_absolute(const char *path) {
  wchar_t w[WPATH_MAX], full[WPATH_MAX];
  if (!widen(path, w, WPATH_MAX)) return NULL;
  DWORD n = GetFullPathNameW(w, WPATH_MAX, full, NULL);
  if (n == 0 || n >= WPATH_MAX) return NULL;
  int len = WideCharToMultiByte(CP_UTF8, 0, full, -1, NULL, 0, NULL, NULL);
  char *out = len > 0 ? malloc((size_t)len) : NULL;
  if (out && !WideCharToMultiByte(CP_UTF8, 0, full, -1, out, len, NULL, NULL)) {
    free(out);
    out = NULL;
  }
  return out;
}

void sfc_fd_close(sfc_fd fd) {
  if (fd != SFC_NO_FD) CloseHandle((HANDLE)fd);
}

sfc_status sfc_file_open_lock(const sfc_dir *dir, const char *name,
                              const char *path, sfc_fd *out, sfc_error *err) {
  wchar_t w[WPATH_MAX];
  if (!path_in(dir, name, w, WPATH_MAX))
    return win_error(err, "cannot open lock file", path, GetLastError());
  /* No FILE_SHARE_DELETE: nobody deletes the lock file under its holder. */
  HANDLE h = open_w(w, GENERIC_READ | GENERIC_WRITE,
                    FILE_SHARE_READ | FILE_SHARE_WRITE, OPEN_ALWAYS,
                    FILE_ATTRIBUTE_NORMAL);
  if (h == INVALID_HANDLE_VALUE)
    return win_error(err, "cannot open lock file", path, GetLastError());
  BY_HANDLE_FILE_INFORMATION info;
  sfc_status st = check_regular(h, path, &info, err);
  if (st != SFC_OK) {
    CloseHandle(h);
    return st;
  }
  *out = (sfc_fd)h;
  return SFC_OK;
}

sfc_status sfc_file_try_lock(sfc_fd fd, const char *path, bool *held,
                             sfc_error *err) {
  /* One byte far past the end: Windows' locks are mandatory, and the
   * file's text (the holder's pid) must stay readable. */
  OVERLAPPED at = {0};
  at.OffsetHigh = 0x7fffffff;
  *held = false;
  if (LockFileEx((HANDLE)fd,
                 LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0,
                 &at))
    return SFC_OK;
  DWORD e = GetLastError();
  if (e == ERROR_LOCK_VIOLATION || e == ERROR_IO_PENDING) {
    *held = true;
    return SFC_OK;
  }
  return win_error(err, "cannot lock", path, e);
}

void sfc_file_unlock(sfc_fd fd) {
  OVERLAPPED at = {0};
  at.OffsetHigh = 0x7fffffff;
  UnlockFileEx((HANDLE)fd, 0, 1, 0, &at);
}

bool sfc_file_set_text(sfc_fd fd, const char *text, size_t len) {
  HANDLE h = (HANDLE)fd;
  LARGE_INTEGER zero = {0};
  DWORD k;
  /* Written first, cut to length after (SetEndOfFile): a holder killed in
   * between leaves the whole new text, and its readers stop at its end. */
  return SetFilePointerEx(h, zero, NULL, FILE_BEGIN) &&
         WriteFile(h, text, (DWORD)len, &k, NULL) && k == len &&
         SetEndOfFile(h);
}

sfc_status sfc_file_overwrite(sfc_fd fd, const char *text, size_t len,
                              const char *path, sfc_error *err) {
  HANDLE h = (HANDLE)fd;
  LARGE_INTEGER zero = {0};
  DWORD k;
  if (SetFilePointerEx(h, zero, NULL, FILE_BEGIN) &&
      WriteFile(h, text, (DWORD)len, &k, NULL) && k == len)
    return SFC_OK;
  return win_error(err, "cannot write", path, GetLastError());
}

void sfc_file_close_removing(const sfc_dir *dir, const char *name, sfc_fd fd) {
  /* Removed after closing: a holder that opened it meanwhile keeps it open
   * without FILE_SHARE_DELETE, so the removal fails then. */
  wchar_t w[WPATH_MAX];
  bool known = path_in(dir, name, w, WPATH_MAX);
  CloseHandle((HANDLE)fd);
  if (known) DeleteFileW(w);
}

bool sfc_file_is_at(const sfc_dir *dir, const char *name, sfc_fd fd) {
  wchar_t w[WPATH_MAX];
  BY_HANDLE_FILE_INFORMATION info;
  sfc_file_id there;
  if (!GetFileInformationByHandle((HANDLE)fd, &info) ||
      info.nNumberOfLinks == 0 || !path_in(dir, name, w, WPATH_MAX) ||
      !id_of_path(w, 0, &there, NULL))
    return false;
  sfc_file_id open = id_of(&info);
  return open.dev == there.dev && open.ino == there.ino;
}

bool sfc_file_id_at(const sfc_dir *dir, const char *name, sfc_file_id *id) {
  wchar_t w[WPATH_MAX];
  return path_in(dir, name, w, WPATH_MAX) &&
         id_of_path(w, FILE_FLAG_BACKUP_SEMANTICS, id, NULL);
}

sfc_status sfc_file_read_at(const sfc_dir *dir, const char *name,
                            const char *path, char *buf, size_t cap,
                            size_t *len, bool *missing, char *owner,
                            sfc_error *err) {
  wchar_t w[WPATH_MAX];
  *missing = false;
  *len = 0;
  /* Owners are not read here: the folders' ACLs keep each user's files
   * its own (see sfc_records_dir_open). */
  if (owner) snprintf(owner, SFC_TAG_MAX, "*");
  if (!path_in(dir, name, w, WPATH_MAX))
    return win_error(err, "cannot read state file", path, GetLastError());
  HANDLE h =
      open_w(w, GENERIC_READ, SHARE_ALL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL);
  if (h == INVALID_HANDLE_VALUE) {
    DWORD e = GetLastError();
    if (e == ERROR_FILE_NOT_FOUND) {
      *missing = true;
      return SFC_OK;
    }
    return win_error(err, "cannot read state file", path, e);
  }
  BY_HANDLE_FILE_INFORMATION info;
  sfc_status st = check_regular(h, path, &info, err);
  size_t n = 0;
  while (st == SFC_OK && n < cap - 1) {
    DWORD k;
    if (!ReadFile(h, buf + n, (DWORD)(cap - 1 - n), &k, NULL))
      st = win_error(err, "cannot read state file", path, GetLastError());
    else if (k == 0)
      break;
    n += k;
  }
  CloseHandle(h);
  buf[n] = '\0';
  *len = n;
  return st;
}

sfc_status sfc_file_read_fd(sfc_fd fd, const char *path, char *buf, size_t cap,
                            size_t *len, sfc_error *err) {
  HANDLE h = (HANDLE)fd;
  LARGE_INTEGER zero = {0};
  size_t n = 0;
  if (!SetFilePointerEx(h, zero, NULL, FILE_BEGIN))
    return win_error(err, "cannot read", path, GetLastError());
  while (n < cap - 1) {
    DWORD k;
    if (!ReadFile(h, buf + n, (DWORD)(cap - 1 - n), &k, NULL))
      return win_error(err, "cannot read", path, GetLastError());
    if (k == 0) break;
    n += k;
  }
  buf[n] = '\0';
  *len = n;
  return SFC_OK;
}

sfc_status sfc_file_lock_held_at(const sfc_dir *dir, const char *name,
                                 const char *path, bool *held, sfc_error *err) {
  wchar_t w[WPATH_MAX];
  *held = false;
  if (!path_in(dir, name, w, WPATH_MAX))
    return win_error(err, "cannot open", path, GetLastError());
  HANDLE h =
      open_w(w, GENERIC_READ, SHARE_ALL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL);
  if (h == INVALID_HANDLE_VALUE) {
    DWORD e = GetLastError();
    if (e == ERROR_FILE_NOT_FOUND) return SFC_OK;
    return win_error(err, "cannot open", path, e);
  }
  BY_HANDLE_FILE_INFORMATION info;
  sfc_status st = check_regular(h, path, &info, err);
  if (st == SFC_OK) st = sfc_file_try_lock((sfc_fd)h, path, held, err);
  CloseHandle(h); /* the test's lock goes with it */
  return st;
}

sfc_status sfc_file_renew_locked(const sfc_dir *dir, const char *name,
                                 const char *path, sfc_fd *fd, const char *data,
                                 size_t len, sfc_error *err) {
  (void)dir;
  (void)name;
  return sfc_file_overwrite(*fd, data, len, path, err);
}

sfc_status sfc_file_replace_at(const sfc_dir *dir, const char *name,
                               const char *path, const char *data, size_t len,
                               sfc_file_id *id, sfc_error *err) {
  char tmp_name[sizeof((sfc_state *)0)->stem + 16], tmp[4200];
  wchar_t w[WPATH_MAX], wtmp[WPATH_MAX];
  snprintf(tmp_name, sizeof tmp_name, "%s.tmp", name);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  if (!path_in(dir, name, w, WPATH_MAX) ||
      !path_in(dir, tmp_name, wtmp, WPATH_MAX))
    return win_error(err, "cannot write state file", path, GetLastError());
  /* Left by a crash: removed if it is a plain file. A link or a folder in
   * its place is refused by CREATE_NEW below. */
  DWORD attributes = GetFileAttributesW(wtmp);
  if (attributes != INVALID_FILE_ATTRIBUTES &&
      !(attributes & (FILE_ATTRIBUTE_REPARSE_POINT | FILE_ATTRIBUTE_DIRECTORY)))
    DeleteFileW(wtmp);
  attributes = GetFileAttributesW(w);
  if (attributes != INVALID_FILE_ATTRIBUTES &&
      (attributes & (FILE_ATTRIBUTE_REPARSE_POINT | FILE_ATTRIBUTE_DIRECTORY)))
    return sfc_fail(err, SFC_STATE_ERROR,
                    "%s is %s, not a regular file: a state_dir holds only "
                    "the regular files snowflake-c writes there (links are "
                    "never followed); remove it",
                    path,
                    attributes & FILE_ATTRIBUTE_REPARSE_POINT
                        ? "a symbolic link or junction"
                        : "a directory");
  HANDLE h = open_w(wtmp, GENERIC_WRITE, 0, CREATE_NEW, FILE_ATTRIBUTE_NORMAL);
  if (h == INVALID_HANDLE_VALUE)
    return win_error(err, "cannot write state file", tmp, GetLastError());
  size_t done = 0;
  DWORD e = 0;
  while (!e && done < len) {
    DWORD k;
    if (!WriteFile(h, data + done, (DWORD)(len - done), &k, NULL) || k == 0)
      e = GetLastError() ? GetLastError() : ERROR_DISK_FULL;
    done += k;
  }
  BY_HANDLE_FILE_INFORMATION info;
  if (!e && (!FlushFileBuffers(h) || !GetFileInformationByHandle(h, &info)))
    e = GetLastError();
  CloseHandle(h);
  if (e) {
    DeleteFileW(wtmp);
    return win_error(err, "cannot write state file", tmp, e);
  }
  if (!MoveFileExW(wtmp, w,
                   MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
    e = GetLastError();
    DeleteFileW(wtmp);
    return win_error(err, "cannot replace state file", path, e);
  }
  *id = id_of(&info);
  return SFC_OK;
}

#else
typedef int sfc_files_windows_unused; /* nothing to compile on this platform */
#endif
