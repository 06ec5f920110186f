#ifndef REQBENCH_CYAML_H
#define REQBENCH_CYAML_H

#include <stddef.h>

/// What `rb_yaml_next` read: libyaml's event types, flattened so Swift reads no C union.
enum rb_yaml_kind {
  RB_YAML_STREAM_START = 1,
  RB_YAML_STREAM_END,
  RB_YAML_DOCUMENT_START,
  RB_YAML_DOCUMENT_END,
  RB_YAML_ALIAS,
  RB_YAML_SCALAR,
  RB_YAML_SEQUENCE_START,
  RB_YAML_SEQUENCE_END,
  RB_YAML_MAPPING_START,
  RB_YAML_MAPPING_END,
};

/// One event. The strings belong to the reader and stay valid until the next `rb_yaml_next` or
/// `rb_yaml_close`; `value` may hold NUL bytes (its length is `length`).
typedef struct {
  int kind;
  /// Where the event starts, counted from 0 (libyaml counts characters, not bytes, in `column`).
  size_t line;
  size_t column;
  /// A scalar's text.
  const char *value;
  size_t length;
  /// 1 when the scalar was written plain (no quotes, not a block `|` or `>`): only a plain scalar
  /// may be a number, a boolean or null.
  int plain;
  /// The anchor a node defines (`&name`), or the one an alias refers to (`*name`); NULL if none.
  const char *anchor;
  /// The node's tag, resolved by libyaml (`tag:yaml.org,2002:str` for `!!str`); NULL if none.
  const char *tag;
} rb_yaml_event;

typedef struct rb_yaml rb_yaml;

/// A reader over `length` bytes of `input` (not copied: it must outlive the reader); NULL when
/// out of memory.
rb_yaml *rb_yaml_open(const unsigned char *input, size_t length);

/// Reads the next event into `*event`. Returns 1, or 0 on a syntax error (see `rb_yaml_error`).
int rb_yaml_next(rb_yaml *reader, rb_yaml_event *event);

/// The last syntax error: libyaml's problem (and its context, when it has one, after "; "), and
/// where it is, counted from 0. The text belongs to the reader.
const char *rb_yaml_error(rb_yaml *reader, size_t *line, size_t *column);

void rb_yaml_close(rb_yaml *reader);

#endif
