#define _GNU_SOURCE 1
#define _XOPEN_SOURCE_EXTENDED 1
#include "CNcurses.h"
#include <locale.h>

static int started = 0;

int rb_curses_start(int mouse) {
  setlocale(LC_ALL, "");
  if (initscr() == NULL) return -1;
  started = 1;
  raw();
  noecho();
  nonl();
  keypad(stdscr, TRUE);
  nodelay(stdscr, TRUE);
  scrollok(stdscr, FALSE);
  set_escdelay(25);
  curs_set(0);
  if (has_colors()) {
    start_color();
    use_default_colors();
  }
  if (mouse) {
    mousemask(ALL_MOUSE_EVENTS, NULL);
    mouseinterval(0);
  }
  return 0;
}

void rb_curses_stop(void) {
  if (!started) return;
  started = 0;
  curs_set(1);
  endwin();
}

int rb_curses_lines(void) { return LINES; }
int rb_curses_cols(void) { return COLS; }
int rb_curses_colors(void) { return has_colors() ? COLORS : 0; }
int rb_curses_init_pair(short pair, short foreground, short background) {
  return init_pair(pair, foreground, background);
}

void rb_curses_draw(int y, int x, const char *utf8, unsigned int attributes, short pair) {
  attr_set((attr_t)attributes, pair, NULL);
  mvaddstr(y, x, utf8);
}

void rb_curses_move(int y, int x) { move(y, x); }
void rb_curses_refresh(void) { refresh(); }
void rb_curses_clear(void) { clearok(stdscr, TRUE); }

int rb_curses_read(unsigned int *ch) {
  wint_t c;
  int r = get_wch(&c);
  if (r == ERR) return 0;
  *ch = (unsigned int)c;
  return r == KEY_CODE_YES ? 2 : 1;
}

int rb_curses_mouse(int *x, int *y, unsigned long *buttons) {
  MEVENT event;
  if (getmouse(&event) != OK) return 0;
  *x = event.x;
  *y = event.y;
  *buttons = (unsigned long)event.bstate;
  return 1;
}

int rb_wcwidth(unsigned int scalar) { return wcwidth((wchar_t)scalar); }

const unsigned int rb_attr_bold = A_BOLD, rb_attr_dim = A_DIM, rb_attr_italic = A_ITALIC,
  rb_attr_underline = A_UNDERLINE, rb_attr_reverse = A_REVERSE;
const unsigned long rb_button1_pressed = BUTTON1_PRESSED, rb_button1_released = BUTTON1_RELEASED,
  rb_button1_clicked = BUTTON1_CLICKED, rb_button4_pressed = BUTTON4_PRESSED,
  rb_button5_pressed = BUTTON5_PRESSED;
const int rb_key_resize = KEY_RESIZE, rb_key_mouse = KEY_MOUSE, rb_key_up = KEY_UP,
  rb_key_down = KEY_DOWN, rb_key_left = KEY_LEFT, rb_key_right = KEY_RIGHT, rb_key_home = KEY_HOME,
  rb_key_end = KEY_END, rb_key_ppage = KEY_PPAGE, rb_key_npage = KEY_NPAGE, rb_key_btab = KEY_BTAB,
  rb_key_backspace = KEY_BACKSPACE, rb_key_dc = KEY_DC, rb_key_enter = KEY_ENTER,
  rb_key_f1 = KEY_F(1);
