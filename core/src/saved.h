/* What a node value leaves for its next holder (saved.c), and the text
 * helpers of its files; included by internal.h only. */
#ifndef SFC_SAVED_H
#define SFC_SAVED_H

/* saved.c — what a node value leaves for its next holder: the state file's
 * and the hand-over record's contents. */
typedef struct sfc_saved {
  int64_t mark;   /* no ID was issued under `clock` after this tick */
  uint64_t clock; /* clock value in force */
  int64_t last[SFC_CLOCK_VALUES]; /* each clock value's last tick */
  bool unclean; /* a holder that may have issued up to its mark ended
                   without giving the value back */
} sfc_saved;

/* Nothing saved: mark 0, clock 0, no clock value used. */
SFC_INTERNAL void sfc_saved_clear(sfc_saved *s);
/* The mark joins the last tick of the clock value in force. */
SFC_INTERNAL void sfc_saved_normalize(sfc_saved *s);
/* The later of two, by clock value: each value's last tick (the marks
 * joined to their values first), the clock value of the later mark. */
SFC_INTERNAL void sfc_saved_merge(sfc_saved *into, const sfc_saved *from);
/* The latest tick it names. */
SFC_INTERNAL int64_t sfc_saved_latest(const sfc_saved *s);
/* "mark M\nclock C\nlast L0 L1 …\n" (clock_max + 1 values): its length. */
SFC_INTERNAL size_t sfc_saved_print(const sfc_saved *s, uint64_t clock_max,
                                    char *buf, size_t cap);
/* Parses exactly that text (modified in place); NULL, or what is wrong. */
SFC_INTERNAL const char *sfc_saved_parse(char *text, uint64_t clock_max,
                                         uint64_t time_max, sfc_saved *out);
/* Splits off the line "key value" at *p: returns the value (NUL-terminated
 * in place) and moves *p to the next line, or NULL when the key differs. */
SFC_INTERNAL char *sfc_text_line(char **p, const char *key);
/* A decimal number (NULL: none), at least `min`, nothing else. */
SFC_INTERNAL bool sfc_text_number(const char *text, long long min,
                                  long long *out);
/* Appends "check <FNV-1a of buf[0..n)>\n": the new length, 0 if no room. */
SFC_INTERNAL size_t sfc_check_append(char *buf, size_t n, size_t cap);
/* Finds the first check line of buf (n bytes, NUL-terminated) and verifies
 * it: NULL and the text before it (*body bytes) and the end of the line
 * (*end), or what is wrong. */
SFC_INTERNAL const char *sfc_check_verify(const char *buf, size_t n,
                                          size_t *body, size_t *end);

#endif
