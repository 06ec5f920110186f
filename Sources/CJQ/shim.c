#define _GNU_SOURCE 1
#include "CJQ.h"
#include <jq.h>
#include <jv.h>
#include <stdlib.h>
#include <string.h>

struct buffer {
  char *data;
  size_t length;
  size_t capacity;
};

static void append(struct buffer *b, const char *text, size_t n) {
  if (b->length + n + 1 > b->capacity) {
    size_t capacity = b->capacity ? b->capacity * 2 : 256;
    while (capacity < b->length + n + 1) capacity *= 2;
    char *grown = realloc(b->data, capacity);
    if (!grown) return;
    b->data = grown;
    b->capacity = capacity;
  }
  memcpy(b->data + b->length, text, n);
  b->length += n;
  b->data[b->length] = 0;
}

static void collect_error(void *data, jv message) {
  struct buffer *errors = data;
  jv text = jv_copy(message);
  if (jv_get_kind(text) == JV_KIND_STRING) {
    const char *s = jv_string_value(text);
    if (errors->length) append(errors, "; ", 2);
    append(errors, s, strlen(s));
  }
  jv_free(text);
  jv_free(message);
}

int rb_jq_compile(const char *program, char **output) {
  struct buffer errors = {0};
  *output = NULL;
  jq_state *jq = jq_init();
  if (!jq) {
    *output = strdup("cannot start jq (out of memory)");
    return -1;
  }
  jq_set_error_cb(jq, collect_error, &errors);
  int compiled = jq_compile(jq, program);
  jq_teardown(&jq);
  if (compiled) {
    free(errors.data);
    return 0;
  }
  *output = errors.length ? errors.data : strdup("the jq expression does not compile");
  if (errors.length == 0) free(errors.data);
  return -1;
}

int rb_jq_run(const char *program, const char *input, size_t length, int pretty, char **output) {
  struct buffer out = {0}, errors = {0};
  *output = NULL;
  jq_state *jq = jq_init();
  if (!jq) {
    *output = strdup("cannot start jq (out of memory)");
    return -1;
  }
  jq_set_error_cb(jq, collect_error, &errors);
  if (!jq_compile(jq, program)) {
    jq_teardown(&jq);
    *output = errors.length ? errors.data : strdup("the jq expression does not compile");
    if (errors.length == 0) free(errors.data);
    free(out.data);
    return -1;
  }
  jv value = jv_parse_sized(input, (int)length);
  if (!jv_is_valid(value)) {
    jv message = jv_invalid_get_msg(value);
    const char *text = jv_get_kind(message) == JV_KIND_STRING ? jv_string_value(message) : "invalid JSON";
    struct buffer m = {0};
    append(&m, "the body is not JSON: ", 22);
    append(&m, text, strlen(text));
    jv_free(message);
    jq_teardown(&jq);
    free(errors.data);
    free(out.data);
    *output = m.data;
    return -1;
  }
  jq_start(jq, value, 0);
  int flags = pretty ? (JV_PRINT_PRETTY | JV_PRINT_INDENT_FLAGS(2)) : 0;
  int failed = 0;
  for (;;) {
    jv result = jq_next(jq);
    if (!jv_is_valid(result)) {
      if (jv_invalid_has_msg(jv_copy(result))) {
        jv message = jv_invalid_get_msg(result);
        jv text = jv_get_kind(message) == JV_KIND_STRING ? message : jv_dump_string(message, 0);
        const char *s = jv_string_value(text);
        if (errors.length) append(&errors, "; ", 2);
        append(&errors, s, strlen(s));
        jv_free(text);
        failed = 1;
      } else {
        jv_free(result);
      }
      break;
    }
    jv text = jv_dump_string(result, flags);
    const char *s = jv_string_value(text);
    append(&out, s, strlen(s));
    append(&out, "\n", 1);
    jv_free(text);
  }
  jq_teardown(&jq);
  if (failed) {
    free(out.data);
    *output = errors.data;
    return -1;
  }
  free(errors.data);
  *output = out.data ? out.data : strdup("");
  return 0;
}
