#define _GNU_SOURCE 1
#define _XOPEN_SOURCE_EXTENDED 1
#include "CNcurses.h"
#include <locale.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

extern char **environ;

static int started = 0;

// Bracketed paste (xterm's mode 2004): a paste comes between ESC[200~ and ESC[201~, which the
// TUI reads as one paste (PasteAssembler), never as keys. Terminals without it ignore the mode.
static void bracketed_paste(int on) {
  const char *mode = on ? "\033[?2004h" : "\033[?2004l";
  ssize_t ignored = write(STDOUT_FILENO, mode, strlen(mode));
  (void)ignored;
}

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
  refresh();
  bracketed_paste(1);
  return 0;
}

void rb_curses_stop(void) {
  if (!started) return;
  started = 0;
  bracketed_paste(0);
  curs_set(1);
  endwin();
}

int rb_curses_run_in_terminal(const char *command, const char *argument, int mouse) {
  // Leave curses mode: the terminal gets the settings it had before reqbench started.
  if (started) {
    bracketed_paste(0);
    def_prog_mode();
    curs_set(1);
    endwin();
  }
  // As system(3) does: the child gets the terminal's signals, the parent ignores Ctrl-C and
  // Ctrl-\ while it waits (the child is in reqbench's own process group, the terminal's
  // foreground group, so its reads and writes on the terminal work).
  struct sigaction ignore, saved_int, saved_quit, saved_ttou;
  memset(&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGINT, &ignore, &saved_int);
  sigaction(SIGQUIT, &ignore, &saved_quit);
  sigaction(SIGTTOU, &ignore, &saved_ttou);

  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults, empty;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGTTOU);
  sigaddset(&defaults, SIGTTIN);
  sigaddset(&defaults, SIGTSTP);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGHUP);
  sigaddset(&defaults, SIGWINCH);
  sigemptyset(&empty);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setsigmask(&attributes, &empty);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  // stdin, stdout and stderr on the terminal (stderr may have been redirected to a log).
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  for (int fd = 0; fd <= 2; fd++) {
    if (!isatty(fd)) posix_spawn_file_actions_addopen(&files, fd, "/dev/tty", O_RDWR, 0);
  }

  char *argv[] = {"/bin/sh", "-c", (char *)command, "sh", (char *)argument, NULL};
  pid_t pid;
  int status = -1;
  if (posix_spawn(&pid, "/bin/sh", &files, &attributes, argv, environ) == 0) {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  }
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attributes);

  // Take the terminal back should the child have given it to another process group.
  if (isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) != getpgrp()) tcsetpgrp(STDIN_FILENO, getpgrp());
  sigaction(SIGINT, &saved_int, NULL);
  sigaction(SIGQUIT, &saved_quit, NULL);
  sigaction(SIGTTOU, &saved_ttou, NULL);

  // Back to curses mode. Replies to the editor's terminal queries (cursor position, version,
  // colours) may still be on their way: let them arrive, then drop them so they are not keys.
  usleep(30000);
  tcflush(STDIN_FILENO, TCIFLUSH);
  started = 1;
  reset_prog_mode();
  curs_set(0);
  keypad(stdscr, TRUE);
  nodelay(stdscr, TRUE);
  if (mouse) {
    mousemask(ALL_MOUSE_EVENTS, NULL);
    mouseinterval(0);
  }
  flushinp();
  clearok(curscr, TRUE);
  refresh();
  bracketed_paste(1);

  if (status == -1) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
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
