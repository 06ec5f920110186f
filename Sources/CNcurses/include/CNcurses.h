#ifndef REQBENCH_CNCURSES_H
#define REQBENCH_CNCURSES_H

// SwiftPM drops pkg-config's -D flags: ask for the wide-character API here.
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <wchar.h>

// Swift 6 cannot touch ncurses' mutable globals (stdscr, LINES, COLS) and does not import
// macros such as getmaxyx or A_BOLD, nor wcwidth: accessors and constants instead.

/// Starts curses on the terminal: UTF-8 locale, raw keys, no echo, keypad, non-blocking reads,
/// mouse, colours (default background kept), bracketed paste (ESC[?2004h; off again on stop and
/// while a program runs in the terminal). Returns 0, or -1 when the terminal cannot be used.
int rb_curses_start(int mouse);
/// Restores the terminal (safe to call twice).
void rb_curses_stop(void);
/// Leaves curses mode, runs `/bin/sh -c COMMAND sh ARGUMENT` in the terminal's foreground
/// process group (reqbench's own) with stdin/stdout/stderr on the terminal, waits for it, and
/// restores curses mode (mouse included) with the pending input dropped. Returns the exit status
/// (128 + N when killed by signal N), or -1 when the shell could not be started.
int rb_curses_run_in_terminal(const char *command, const char *argument, int mouse);
int rb_curses_lines(void);
int rb_curses_cols(void);
int rb_curses_colors(void);
int rb_curses_init_pair(short pair, short foreground, short background);

/// Draws UTF-8 text at (y, x) with the given attribute bits (rb_attr_*) and colour pair.
void rb_curses_draw(int y, int x, const char *utf8, unsigned int attributes, short pair);
void rb_curses_move(int y, int x);
void rb_curses_refresh(void);
void rb_curses_clear(void);

/// One key: returns 0 (nothing waiting), 1 (a character in *ch) or 2 (a function key in *ch).
int rb_curses_read(unsigned int *ch);
/// The last mouse event: 1 when there was one.
int rb_curses_mouse(int *x, int *y, unsigned long *buttons);

int rb_wcwidth(unsigned int scalar);

extern const unsigned int rb_attr_bold, rb_attr_dim, rb_attr_italic, rb_attr_underline, rb_attr_reverse;
extern const unsigned long rb_button1_pressed, rb_button1_released, rb_button1_clicked,
  rb_button4_pressed, rb_button5_pressed;
extern const int rb_key_resize, rb_key_mouse, rb_key_up, rb_key_down, rb_key_left, rb_key_right,
  rb_key_home, rb_key_end, rb_key_ppage, rb_key_npage, rb_key_btab, rb_key_backspace, rb_key_dc,
  rb_key_enter, rb_key_f1;

#endif
