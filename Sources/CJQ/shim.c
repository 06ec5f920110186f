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

/* The one JSON value of input[0..<length], as jv_parse_sized gives it, without its limit to an
   int length and without echoing the whole input in an error ("while parsing '…'"). */
static jv parse_whole(const char *input, size_t length, size_t piece) {
  jv_parser *parser = jv_parser_new(0);
  if (!parser) return jv_invalid_with_msg(jv_string("out of memory"));
  jv value = jv_invalid();
  int have = 0;
  size_t offset = 0;
  do {
    size_t n = length - offset < piece ? length - offset : piece;
    int partial = offset + n < length;
    jv_parser_set_buf(parser, input + offset, (int)n, partial);
    offset += n;
    for (;;) {
      jv next = jv_parser_next(parser);
      if (jv_is_valid(next)) {
        if (have) {
          jv_free(next);
          jv_free(value);
          jv_parser_free(parser);
          return jv_invalid_with_msg(jv_string("Unexpected extra JSON values"));
        }
        value = next;
        have = 1;
        continue;
      }
      if (jv_invalid_has_msg(jv_copy(next))) {
        jv_free(value);
        jv_parser_free(parser);
        return next;
      }
      jv_free(next);
      break; /* this piece is used up */
    }
  } while (offset < length);
  jv_parser_free(parser);
  if (!have) return jv_invalid_with_msg(jv_string("Expected JSON value"));
  return value;
}

/* Runs the compiled program over `value` (consumed): each output dumped with `flags`, a line each,
   into `out`. On an error its message goes into `error` (after "; " when `error` holds messages
   already) and 1 is returned. rb_jq_run and rb_jq_program_each share it. */
static int run_over(jq_state *jq, jv value, int flags, struct buffer *out, struct buffer *error) {
  jq_start(jq, value, 0);
  for (;;) {
    jv result = jq_next(jq);
    if (!jv_is_valid(result)) {
      if (!jv_invalid_has_msg(jv_copy(result))) {
        jv_free(result);
        return 0;
      }
      jv message = jv_invalid_get_msg(result);
      jv text = jv_get_kind(message) == JV_KIND_STRING ? message : jv_dump_string(message, 0);
      const char *s = jv_string_value(text);
      if (error->length) append(error, "; ", 2);
      append(error, s, strlen(s));
      jv_free(text);
      return 1;
    }
    jv text = jv_dump_string(result, flags);
    const char *s = jv_string_value(text);
    append(out, s, strlen(s));
    append(out, "\n", 1);
    jv_free(text);
  }
}

int rb_jq_run(const char *program, const char *input, size_t length, int pretty, char **output) {
  return rb_jq_run_pieces(program, input, length, pretty, (size_t)1 << 30, output);
}

int rb_jq_run_pieces(const char *program, const char *input, size_t length, int pretty, size_t piece,
                     char **output) {
  if (piece == 0 || piece > (size_t)1 << 30) piece = (size_t)1 << 30;
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
  jv value = parse_whole(input, length, piece);
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
  int flags = pretty ? (JV_PRINT_PRETTY | JV_PRINT_INDENT_FLAGS(2)) : 0;
  int failed = run_over(jq, value, flags, &out, &errors);
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

/* Appends one record of rb_jq_run_each: its kind ('o' outputs, 'e' error), its text with any RS
   byte dropped (a record ends at the RS that follows), then RS. */
static void append_record(struct buffer *out, char kind, const char *text, size_t n) {
  append(out, &kind, 1);
  size_t start = 0;
  for (size_t i = 0; i < n; i++) {
    if (text[i] == 0x1E) {
      append(out, text + start, i - start);
      start = i + 1;
    }
  }
  append(out, text + start, n - start);
  append(out, "\x1e", 1);
}

struct rb_jq_program {
  jq_state *jq;
  struct buffer errors;
};

rb_jq_program *rb_jq_program_new(const char *program, char **error) {
  *error = NULL;
  rb_jq_program *p = calloc(1, sizeof *p);
  if (!p) {
    *error = strdup("cannot start jq (out of memory)");
    return NULL;
  }
  p->jq = jq_init();
  if (!p->jq) {
    free(p);
    *error = strdup("cannot start jq (out of memory)");
    return NULL;
  }
  jq_set_error_cb(p->jq, collect_error, &p->errors);
  if (!jq_compile(p->jq, program)) {
    *error = p->errors.length ? p->errors.data : strdup("the jq expression does not compile");
    if (p->errors.length == 0) free(p->errors.data);
    p->errors.data = NULL;
    jq_teardown(&p->jq);
    free(p);
    return NULL;
  }
  return p;
}

void rb_jq_program_free(rb_jq_program *p) {
  if (!p) return;
  jq_teardown(&p->jq);
  free(p->errors.data);
  free(p);
}

int rb_jq_program_each(rb_jq_program *p, const char *const *inputs, const size_t *lengths, size_t count,
                       char **output) {
  struct buffer out = {0};
  *output = NULL;
  jq_state *jq = p->jq;
  for (size_t k = 0; k < count; k++) {
    jv value = parse_whole(inputs[k] ? inputs[k] : "", inputs[k] ? lengths[k] : 0, (size_t)1 << 30);
    if (!jv_is_valid(value)) {
      jv message = jv_invalid_get_msg(value);
      const char *text = jv_get_kind(message) == JV_KIND_STRING ? jv_string_value(message) : "invalid JSON";
      struct buffer m = {0};
      append(&m, "the data is not JSON: ", 22);
      append(&m, text, strlen(text));
      append_record(&out, 'e', m.data ? m.data : "", m.length);
      free(m.data);
      jv_free(message);
      continue;
    }
    struct buffer results = {0}, error = {0};
    if (run_over(jq, value, 0, &results, &error)) {
      append_record(&out, 'e', error.data ? error.data : "", error.length);
    } else {
      append_record(&out, 'o', results.data ? results.data : "", results.length);
    }
    free(results.data);
    free(error.data);
  }
  *output = out.data ? out.data : strdup("");
  return 0;
}
