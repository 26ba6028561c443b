/* The state folder's files on WebAssembly, which has none: a state_dir (and
 * with it node value 'auto') is refused, saying so; the rest is never
 * reached and answers "nothing there". */
#include "internal.h"

#if defined(__wasm__)

static sfc_status no_files(sfc_error *err, const char *path) {
  return sfc_fail(err, SFC_STATE_ERROR,
                  "state_dir '%.100s': WebAssembly has no files, so a "
                  "state_dir (and node value 'auto') is not available: give "
                  "each worker or isolate its own fixed node value",
                  path);
}

sfc_status sfc_dir_open(const char *path, sfc_dir *out, sfc_error *err) {
  out->fd = SFC_NO_FD;
  return no_files(err, path);
}

sfc_status sfc_records_dir_open(sfc_dir *out, char *path, size_t cap,
                                sfc_error *err) {
  out->fd = SFC_NO_FD;
  if (cap) path[0] = '\0';
  return no_files(err, "");
}

sfc_status sfc_dir_each(const sfc_dir *dir, const char *prefix,
                        void (*fn)(void *ctx, const char *name), void *ctx,
                        sfc_error *err) {
  (void)dir;
  (void)prefix;
  (void)fn;
  (void)ctx;
  (void)err;
  return SFC_OK;
}

void sfc_os_user_tag(char *buf, size_t cap) {
  if (cap) buf[0] = '\0';
}

bool sfc_dir_is(const char *path, sfc_file_id id) {
  (void)path;
  (void)id;
  return false;
}

char *sfc_path_absolute(const char *path) {
  (void)path;
  return NULL;
}

void sfc_fd_close(sfc_fd fd) {
  (void)fd;
}

sfc_status sfc_file_open_lock(const sfc_dir *dir, const char *name,
                              const char *path, sfc_fd *out, sfc_error *err) {
  (void)dir;
  (void)name;
  *out = SFC_NO_FD;
  return no_files(err, path);
}

sfc_status sfc_file_try_lock(sfc_fd fd, const char *path, bool *held,
                             sfc_error *err) {
  (void)fd;
  *held = false;
  return no_files(err, path);
}

void sfc_file_unlock(sfc_fd fd) {
  (void)fd;
}

bool sfc_file_set_text(sfc_fd fd, const char *text, size_t len) {
  (void)fd;
  (void)text;
  (void)len;
  return false;
}

sfc_status sfc_file_overwrite(sfc_fd fd, const char *text, size_t len,
                              const char *path, sfc_error *err) {
  (void)fd;
  (void)text;
  (void)len;
  return no_files(err, path);
}

void sfc_file_close_removing(const sfc_dir *dir, const char *name, sfc_fd fd) {
  (void)dir;
  (void)name;
  (void)fd;
}

bool sfc_file_is_at(const sfc_dir *dir, const char *name, sfc_fd fd) {
  (void)dir;
  (void)name;
  (void)fd;
  return false;
}

bool sfc_file_id_at(const sfc_dir *dir, const char *name, sfc_file_id *id) {
  (void)dir;
  (void)name;
  (void)id;
  return false;
}

sfc_status sfc_file_read_at(const sfc_dir *dir, const char *name,
                            const char *path, char *buf, size_t cap,
                            size_t *len, bool *missing, char *owner,
                            sfc_error *err) {
  (void)dir;
  (void)name;
  (void)path;
  (void)err;
  if (cap) buf[0] = '\0';
  *len = 0;
  *missing = true;
  if (owner) owner[0] = '\0';
  return SFC_OK;
}

sfc_status sfc_file_read_fd(sfc_fd fd, const char *path, char *buf, size_t cap,
                            size_t *len, sfc_error *err) {
  (void)fd;
  if (cap) buf[0] = '\0';
  *len = 0;
  return no_files(err, path);
}

sfc_status sfc_file_lock_held_at(const sfc_dir *dir, const char *name,
                                 const char *path, bool *held, sfc_error *err) {
  (void)dir;
  (void)name;
  *held = false;
  return no_files(err, path);
}

sfc_status sfc_file_renew_locked(const sfc_dir *dir, const char *name,
                                 const char *path, sfc_fd *fd, const char *data,
                                 size_t len, sfc_error *err) {
  (void)dir;
  (void)name;
  (void)fd;
  (void)data;
  (void)len;
  return no_files(err, path);
}

sfc_status sfc_file_replace_at(const sfc_dir *dir, const char *name,
                               const char *path, const char *data, size_t len,
                               sfc_file_id *id, sfc_error *err) {
  (void)dir;
  (void)name;
  (void)data;
  (void)len;
  (void)id;
  return no_files(err, path);
}

#else
typedef int sfc_files_wasm_unused; /* nothing to compile on this platform */
#endif
