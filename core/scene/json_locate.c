/* SPDX-License-Identifier: MIT */
/* JSON text scanning: a strict syntax check with positioned messages, and path -> line:col. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "scene_private.h"

#define JSON_DEPTH_MAX 1000 /* cJSON's CJSON_NESTING_LIMIT */

typedef struct jcheck {
  const char *s;
  size_t pos;
  size_t err;
  char *msg;
  size_t cap;
  int failed;
} jcheck;

static int jfail(jcheck *j, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int jfail(jcheck *j, size_t at, const char *fmt, ...) {
  if (j->failed) return -1;
  j->failed = 1;
  j->err = at;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(j->msg, j->cap, fmt, ap);
  va_end(ap);
  return -1;
}

static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_alnum(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static void skip_ws(const char *s, size_t *p) {
  while (is_ws(s[*p])) ++*p;
}

/* "got ..." for the text at p, as a user would recognise it. */
static void describe(const char *s, size_t p, char *buf, size_t cap) {
  unsigned char c = (unsigned char)s[p];
  if (c == '\0') {
    snprintf(buf, cap, "got the end of the file");
  } else if (c == '/' && (s[p + 1] == '/' || s[p + 1] == '*')) {
    snprintf(buf, cap, "got a comment (JSON has no comments)");
  } else if (c == '\'') {
    snprintf(buf, cap, "got ' (JSON strings use double quotes)");
  } else if (is_alnum((char)c)) {
    size_t n = 0;
    while (is_alnum(s[p + n]) && n < 24) n++;
    snprintf(buf, cap, "got '%.*s'", (int)n, s + p);
  } else if (c >= 0x20 && c < 0x7f) {
    snprintf(buf, cap, "got '%c'", c);
  } else {
    snprintf(buf, cap, "got byte 0x%02x", c);
  }
}

static int hex4(const char *s, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = s[i];
    unsigned d;
    if (c >= '0' && c <= '9')
      d = (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f')
      d = (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      d = (unsigned)(c - 'A' + 10);
    else
      return -1;
    v = v * 16 + d;
  }
  *out = v;
  return 0;
}

/* The length of the well-formed UTF-8 sequence at s (lead byte >= 0x80), or 0: no overlong
   form, no surrogate, nothing past U+10FFFF (RFC 3629). */
static size_t utf8_len(const unsigned char *s) {
  unsigned lo = 0x80, hi = 0xBF;
  size_t n;
  if (s[0] >= 0xC2 && s[0] <= 0xDF) {
    n = 2;
  } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
    n = 3;
    if (s[0] == 0xE0) lo = 0xA0; /* overlong */
    if (s[0] == 0xED) hi = 0x9F; /* surrogates */
  } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
    n = 4;
    if (s[0] == 0xF0) lo = 0x90; /* overlong */
    if (s[0] == 0xF4) hi = 0x8F; /* past U+10FFFF */
  } else {
    return 0;
  }
  if (s[1] < lo || s[1] > hi) return 0;
  for (size_t i = 2; i < n; i++)
    if (s[i] < 0x80 || s[i] > 0xBF) return 0;
  return n;
}

static int check_string(jcheck *j) {
  const char *s = j->s;
  size_t start = j->pos++;
  for (;;) {
    unsigned char c = (unsigned char)s[j->pos];
    if (c == '\0' || c == '\n' || c == '\r')
      return jfail(j, start, "unterminated string (a string must end with '\"' on its line)");
    if (c == '"') {
      j->pos++;
      return 0;
    }
    if (c < 0x20)
      return jfail(j, j->pos, "control character 0x%02x in a string (write it escaped)", c);
    if (c >= 0x80) {
      size_t n = utf8_len((const unsigned char *)s + j->pos);
      if (!n) return jfail(j, j->pos, "invalid UTF-8 byte 0x%02x in a string", c);
      j->pos += n;
      continue;
    }
    if (c != '\\') {
      j->pos++;
      continue;
    }
    size_t esc = j->pos;
    char e = s[j->pos + 1];
    if (e && strchr("\"\\/bfnrt", e)) {
      j->pos += 2;
      continue;
    }
    if (e != 'u') {
      if (e == '\0') return jfail(j, start, "unterminated string");
      return jfail(j, esc, "invalid escape '\\%c' in a string", (unsigned char)e >= 0x20 ? e : '?');
    }
    unsigned u, lo;
    if (hex4(s + j->pos + 2, &u)) return jfail(j, esc, "invalid \\u escape: expected 4 hex digits");
    j->pos += 6;
    if (u == 0) /* cJSON's strings end at a NUL: the rest of the string would be dropped */
      return jfail(j, esc, "invalid \\u escape: \\u0000 (NUL) is not allowed in a string");
    if (u >= 0xDC00 && u <= 0xDFFF)
      return jfail(j, esc, "invalid \\u escape: unpaired UTF-16 low surrogate");
    if (u >= 0xD800 && u <= 0xDBFF) {
      if (s[j->pos] != '\\' || s[j->pos + 1] != 'u' || hex4(s + j->pos + 2, &lo) || lo < 0xDC00 ||
          lo > 0xDFFF)
        return jfail(j, esc, "invalid \\u escape: unpaired UTF-16 high surrogate");
      j->pos += 6;
    }
  }
}

static int check_number(jcheck *j) {
  const char *s = j->s;
  size_t start = j->pos;
  if (s[j->pos] == '-') j->pos++;
  if (s[j->pos] == '0') {
    j->pos++;
    if (is_digit(s[j->pos]))
      return jfail(j, start, "invalid number: leading zeros are not allowed");
  } else if (is_digit(s[j->pos])) {
    while (is_digit(s[j->pos])) j->pos++;
  } else {
    return jfail(j, start, "invalid number: expected a digit after '-'");
  }
  if (s[j->pos] == '.') {
    j->pos++;
    if (!is_digit(s[j->pos])) return jfail(j, start, "invalid number: expected a digit after '.'");
    while (is_digit(s[j->pos])) j->pos++;
  }
  if (s[j->pos] == 'e' || s[j->pos] == 'E') {
    j->pos++;
    if (s[j->pos] == '+' || s[j->pos] == '-') j->pos++;
    if (!is_digit(s[j->pos]))
      return jfail(j, start, "invalid number: expected a digit in the exponent");
    while (is_digit(s[j->pos])) j->pos++;
  }
  return 0;
}

static int check_value(jcheck *j, int depth);

static int check_container(jcheck *j, int depth) {
  const char *s = j->s;
  char open = s[j->pos], close = open == '{' ? '}' : ']';
  char got[80];
  if (depth >= JSON_DEPTH_MAX)
    return jfail(j, j->pos, "nesting deeper than %d levels", JSON_DEPTH_MAX);
  j->pos++;
  skip_ws(s, &j->pos);
  if (s[j->pos] == close) {
    j->pos++;
    return 0;
  }
  for (int first = 1;; first = 0) {
    skip_ws(s, &j->pos);
    if (open == '{') {
      if (s[j->pos] != '"') {
        describe(s, j->pos, got, sizeof got);
        if (!first && s[j->pos] == '}')
          return jfail(j, j->pos,
                       "expected a string key, got '}' (no comma after the last member)");
        return jfail(j, j->pos, "expected a string key%s, %s", first ? " or '}'" : "", got);
      }
      if (check_string(j)) return -1;
      skip_ws(s, &j->pos);
      if (s[j->pos] != ':') {
        describe(s, j->pos, got, sizeof got);
        return jfail(j, j->pos, "expected ':' after the key, %s", got);
      }
      j->pos++;
    } else if (!first && s[j->pos] == ']') {
      return jfail(j, j->pos, "expected a value, got ']' (no comma after the last element)");
    }
    if (check_value(j, depth + 1)) return -1;
    skip_ws(s, &j->pos);
    if (s[j->pos] == ',') {
      j->pos++;
      continue;
    }
    if (s[j->pos] == close) {
      j->pos++;
      return 0;
    }
    describe(s, j->pos, got, sizeof got);
    return jfail(j, j->pos, "expected ',' or '%c', %s", close, got);
  }
}

static int check_value(jcheck *j, int depth) {
  const char *s = j->s;
  skip_ws(s, &j->pos);
  char c = s[j->pos];
  if (c == '{' || c == '[') return check_container(j, depth);
  if (c == '"') return check_string(j);
  if (c == '-' || is_digit(c)) return check_number(j);
  static const char *const words[] = {"true", "false", "null"};
  for (int w = 0; w < 3; w++) {
    size_t n = strlen(words[w]);
    if (strncmp(s + j->pos, words[w], n) == 0 && !is_alnum(s[j->pos + n])) {
      j->pos += n;
      return 0;
    }
  }
  char got[80];
  describe(s, j->pos, got, sizeof got);
  return jfail(j, j->pos, "expected a value, %s", got);
}

int scene_json_check(const char *text, size_t *err_off, char *msg, size_t cap) {
  jcheck j = {text, 0, 0, msg, cap, 0};
  skip_ws(text, &j.pos);
  if (text[j.pos] == '\0') {
    jfail(&j, j.pos, "the file is empty (expected an object)");
  } else if (check_value(&j, 0) == 0) {
    skip_ws(text, &j.pos);
    if (text[j.pos] != '\0') {
      char got[80];
      describe(text, j.pos, got, sizeof got);
      jfail(&j, j.pos, "expected the end of the file after the top-level value, %s", got);
    }
  }
  if (!j.failed) return 0;
  *err_off = j.err;
  return -1;
}

/* ---- locating a path in valid JSON ---- */

static void skip_string(const char *s, size_t *p) {
  ++*p;
  while (s[*p] && s[*p] != '"') *p += s[*p] == '\\' && s[*p + 1] ? 2 : 1;
  if (s[*p]) ++*p;
}

static void skip_value(const char *s, size_t *p) {
  if (s[*p] == '"') {
    skip_string(s, p);
  } else if (s[*p] == '{' || s[*p] == '[') {
    int depth = 0;
    do {
      char c = s[*p];
      if (c == '"') {
        skip_string(s, p);
        continue;
      }
      if (c == '{' || c == '[') depth++;
      if (c == '}' || c == ']') depth--;
      ++*p;
    } while (depth > 0 && s[*p]);
  } else {
    while (s[*p] && !is_ws(s[*p]) && !strchr(",]}", s[*p])) ++*p;
  }
}

static size_t utf8_put(unsigned cp, char out[4]) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* Compare the JSON string at *p (decoded) with key; leaves *p after the string. */
static int key_equals(const char *s, size_t *p, const char *key) {
  size_t k = 0;
  int same = 1;
  ++*p;
  while (s[*p] && s[*p] != '"') {
    char buf[4];
    size_t n = 1;
    if (s[*p] != '\\') {
      buf[0] = s[(*p)++];
    } else {
      char e = s[*p + 1];
      *p += 2;
      switch (e) {
        case 'b':
          buf[0] = '\b';
          break;
        case 'f':
          buf[0] = '\f';
          break;
        case 'n':
          buf[0] = '\n';
          break;
        case 'r':
          buf[0] = '\r';
          break;
        case 't':
          buf[0] = '\t';
          break;
        case 'u': {
          unsigned u = 0, lo = 0;
          if (hex4(s + *p, &u) == 0) *p += 4;
          if (u >= 0xD800 && u <= 0xDBFF && s[*p] == '\\' && s[*p + 1] == 'u' &&
              hex4(s + *p + 2, &lo) == 0) {
            *p += 6;
            u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
          }
          n = utf8_put(u, buf);
          break;
        }
        default:
          buf[0] = e;
          break;
      }
    }
    for (size_t i = 0; i < n && same; i++, k++)
      if (!key[k] || key[k] != buf[i]) same = 0;
  }
  if (s[*p]) ++*p;
  return same && key[k] == '\0';
}

size_t scene_json_locate(const char *text, const scene_path *p, int at_key, int *matched) {
  size_t pos = 0;
  int n = p->n < SCENE_PATH_DEPTH ? p->n : SCENE_PATH_DEPTH;
  skip_ws(text, &pos);
  *matched = 0;
  for (int i = 0; i < n; i++) {
    const scene_seg *sg = &p->seg[i];
    size_t q = pos, found = (size_t)-1, found_key = 0;
    if (sg->key && text[q] == '{') {
      int occ = sg->occ;
      q++;
      skip_ws(text, &q);
      while (text[q] == '"') {
        size_t kpos = q;
        int eq = key_equals(text, &q, sg->key);
        skip_ws(text, &q);
        if (text[q] == ':') q++;
        skip_ws(text, &q);
        if (eq && occ-- == 0) {
          found = q;
          found_key = kpos;
          break;
        }
        skip_value(text, &q);
        skip_ws(text, &q);
        if (text[q] != ',') break;
        q++;
        skip_ws(text, &q);
      }
    } else if (!sg->key && text[q] == '[') {
      q++;
      skip_ws(text, &q);
      for (int k = 0; text[q] && text[q] != ']'; k++) {
        if (k == sg->index) {
          found = q;
          break;
        }
        skip_value(text, &q);
        skip_ws(text, &q);
        if (text[q] != ',') break;
        q++;
        skip_ws(text, &q);
      }
    }
    if (found == (size_t)-1) return pos;
    *matched = i + 1;
    if (i == n - 1 && at_key && sg->key) return found_key;
    pos = found;
  }
  return pos;
}

void scene_line_col(const char *text, size_t off, int *line, int *col) {
  int l = 1, c = 1;
  for (size_t i = 0; i < off && text[i]; i++) {
    if (text[i] == '\n') {
      l++;
      c = 1;
    } else if (((unsigned char)text[i] & 0xC0) != 0x80) {
      c++; /* count code points, not UTF-8 continuation bytes */
    }
  }
  *line = l;
  *col = c;
}
