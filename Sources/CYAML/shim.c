#include "CYAML.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct rb_yaml {
  yaml_parser_t parser;
  yaml_event_t event;
  int has_event;
  char error[512];
};

rb_yaml *rb_yaml_open(const unsigned char *input, size_t length) {
  rb_yaml *reader = calloc(1, sizeof *reader);
  if (!reader) return NULL;
  if (!yaml_parser_initialize(&reader->parser)) {
    free(reader);
    return NULL;
  }
  yaml_parser_set_input_string(&reader->parser, input, length);
  return reader;
}

static void drop_event(rb_yaml *reader) {
  if (reader->has_event) {
    yaml_event_delete(&reader->event);
    reader->has_event = 0;
  }
}

int rb_yaml_next(rb_yaml *reader, rb_yaml_event *out) {
  drop_event(reader);
  memset(out, 0, sizeof *out);
  if (!yaml_parser_parse(&reader->parser, &reader->event)) return 0;
  reader->has_event = 1;
  yaml_event_t *e = &reader->event;
  out->line = e->start_mark.line;
  out->column = e->start_mark.column;
  switch (e->type) {
    case YAML_STREAM_START_EVENT: out->kind = RB_YAML_STREAM_START; break;
    case YAML_STREAM_END_EVENT: out->kind = RB_YAML_STREAM_END; break;
    case YAML_DOCUMENT_START_EVENT: out->kind = RB_YAML_DOCUMENT_START; break;
    case YAML_DOCUMENT_END_EVENT: out->kind = RB_YAML_DOCUMENT_END; break;
    case YAML_ALIAS_EVENT:
      out->kind = RB_YAML_ALIAS;
      out->anchor = (const char *)e->data.alias.anchor;
      break;
    case YAML_SCALAR_EVENT:
      out->kind = RB_YAML_SCALAR;
      out->value = (const char *)e->data.scalar.value;
      out->length = e->data.scalar.length;
      out->plain = e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
      out->anchor = (const char *)e->data.scalar.anchor;
      out->tag = (const char *)e->data.scalar.tag;
      break;
    case YAML_SEQUENCE_START_EVENT:
      out->kind = RB_YAML_SEQUENCE_START;
      out->anchor = (const char *)e->data.sequence_start.anchor;
      out->tag = (const char *)e->data.sequence_start.tag;
      break;
    case YAML_SEQUENCE_END_EVENT: out->kind = RB_YAML_SEQUENCE_END; break;
    case YAML_MAPPING_START_EVENT:
      out->kind = RB_YAML_MAPPING_START;
      out->anchor = (const char *)e->data.mapping_start.anchor;
      out->tag = (const char *)e->data.mapping_start.tag;
      break;
    case YAML_MAPPING_END_EVENT: out->kind = RB_YAML_MAPPING_END; break;
    default: out->kind = 0; break;
  }
  return 1;
}

const char *rb_yaml_error(rb_yaml *reader, size_t *line, size_t *column) {
  yaml_parser_t *p = &reader->parser;
  const char *problem = p->problem ? p->problem : "cannot read the YAML";
  if (p->context) {
    snprintf(reader->error, sizeof reader->error, "%s; %s", problem, p->context);
  } else {
    snprintf(reader->error, sizeof reader->error, "%s", problem);
  }
  *line = p->problem_mark.line;
  *column = p->problem_mark.column;
  return reader->error;
}

void rb_yaml_close(rb_yaml *reader) {
  if (!reader) return;
  drop_event(reader);
  yaml_parser_delete(&reader->parser);
  free(reader);
}
