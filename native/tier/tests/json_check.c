/*
 * A strict JSON checker (json_check.h): recursive descent, bounded depth, no allocation.
 */
#include "json_check.h"

#include <stdlib.h>
#include <string.h>

typedef struct jp {
  const char *s;
  size_t n, at;
  int depth;
} jp;

static int value(jp *p);

static void spaces(jp *p) {
  while (p->at < p->n &&
         (p->s[p->at] == ' ' || p->s[p->at] == '\t' || p->s[p->at] == '\n' || p->s[p->at] == '\r'))
    p->at++;
}

static int eat(jp *p, char c) {
  spaces(p);
  if (p->at < p->n && p->s[p->at] == c) {
    p->at++;
    return 1;
  }
  return 0;
}

static int string(jp *p) {
  if (!eat(p, '"')) return 0;
  while (p->at < p->n) {
    unsigned char c = (unsigned char)p->s[p->at++];
    if (c == '"') return 1;
    if (c < 0x20) return 0;
    if (c != '\\') continue;
    if (p->at >= p->n) return 0;
    c = (unsigned char)p->s[p->at++];
    if (c == 'u') {
      for (int i = 0; i < 4; i++, p->at++)
        if (p->at >= p->n || strchr("0123456789abcdefABCDEF", p->s[p->at]) == NULL) return 0;
    } else if (strchr("\"\\/bfnrt", c) == NULL) {
      return 0;
    }
  }
  return 0;
}

static int digits(jp *p) {
  size_t start = p->at;
  while (p->at < p->n && p->s[p->at] >= '0' && p->s[p->at] <= '9') p->at++;
  return p->at > start;
}

static int number(jp *p) {
  if (p->at < p->n && p->s[p->at] == '-') p->at++;
  if (p->at < p->n && p->s[p->at] == '0')
    p->at++;
  else if (!digits(p))
    return 0;
  if (p->at < p->n && p->s[p->at] == '.') {
    p->at++;
    if (!digits(p)) return 0;
  }
  if (p->at < p->n && (p->s[p->at] == 'e' || p->s[p->at] == 'E')) {
    p->at++;
    if (p->at < p->n && (p->s[p->at] == '+' || p->s[p->at] == '-')) p->at++;
    if (!digits(p)) return 0;
  }
  return 1;
}

static int word(jp *p, const char *w) {
  size_t k = strlen(w);
  if (p->n - p->at < k || memcmp(p->s + p->at, w, k) != 0) return 0;
  p->at += k;
  return 1;
}

static int members(jp *p, char close, int keyed) {
  if (eat(p, close)) return 1;
  do {
    if (keyed && (!string(p) || !eat(p, ':'))) return 0;
    if (!value(p)) return 0;
  } while (eat(p, ','));
  return eat(p, close);
}

static int value(jp *p) {
  spaces(p);
  if (p->at >= p->n || p->depth > 64) return 0;
  char c = p->s[p->at];
  int ok;
  p->depth++;
  if (c == '{') {
    p->at++;
    ok = members(p, '}', 1);
  } else if (c == '[') {
    p->at++;
    ok = members(p, ']', 0);
  } else if (c == '"') {
    ok = string(p);
  } else if (c == 't' || c == 'f' || c == 'n') {
    ok = word(p, c == 't' ? "true" : c == 'f' ? "false" : "null");
  } else {
    ok = number(p);
  }
  p->depth--;
  return ok;
}

int jc_is_object(const char *text, size_t n) {
  jp p = {text, n, 0, 0};
  spaces(&p);
  if (p.at >= n || text[p.at] != '{' || !value(&p)) return 0;
  spaces(&p);
  return p.at == n;
}

long long jc_int_field(const char *text, const char *key, int *found) {
  char pat[64];
  size_t k = strlen(key);
  *found = 0;
  if (k + 4 > sizeof pat) return 0;
  pat[0] = '"';
  memcpy(pat + 1, key, k);
  memcpy(pat + 1 + k, "\":", 3);
  const char *at = strstr(text, pat);
  if (at == NULL) return 0;
  *found = 1;
  return strtoll(at + k + 3, NULL, 10);
}
