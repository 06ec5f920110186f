#ifndef REQBENCH_CJQ_H
#define REQBENCH_CJQ_H

#include <stddef.h>

/// Runs the jq `program` over the JSON `input` (length `length`). On success returns 0 and sets
/// `*output` to the results, one per line (pretty-printed, 2-space indent when `pretty`),
/// malloc'd; on failure returns -1 and sets `*output` to the error message, malloc'd.
/// The caller frees `*output`. Each call uses its own jq state, so calls may run on any thread.
int rb_jq_run(const char *program, const char *input, size_t length, int pretty, char **output);

/// `rb_jq_run` feeding libjq's parser `piece` bytes at a time (at most 1 GiB; 0 means 1 GiB).
/// libjq takes buffer lengths as `int`: a body over 2 GiB passed whole aborted in jv_parse.c, so
/// the input always goes in pieces; a small `piece` lets tests cross many piece boundaries.
int rb_jq_run_pieces(const char *program, const char *input, size_t length, int pretty, size_t piece,
                     char **output);

/// Compiles the jq `program` without running it. Returns 0 when it compiles; otherwise -1 and sets
/// `*output` to jq's error message, malloc'd (the caller frees it).
int rb_jq_compile(const char *program, char **output);

/// A jq program compiled once, to run over many inputs (a stream's events) on one thread at a
/// time: `rb_jq_program_new` compiles it (NULL and `*error`, malloc'd, when it does not compile),
/// `rb_jq_program_free` frees it.
typedef struct rb_jq_program rb_jq_program;
rb_jq_program *rb_jq_program_new(const char *program, char **error);
void rb_jq_program_free(rb_jq_program *program);

/// Runs the compiled program over each of `count` JSON inputs (`inputs[k]`, `lengths[k]` bytes).
/// Sets `*output` to one record per input, in order, each its kind (`o`: the outputs, compact,
/// one a line; `e`: the input is not JSON or jq failed on it, the message) then its text, ended
/// by RS (0x1E); malloc'd, the caller frees it. Returns 0.
int rb_jq_program_each(rb_jq_program *program, const char *const *inputs, const size_t *lengths, size_t count,
                       char **output);

#endif
