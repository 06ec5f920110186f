import CSystem

/// Names the calling thread for the system (`top -H`, `perf`, `/proc/PID/task/*/comm`), so each
/// of reqbench's threads can be told apart when measured. Foundation's `Thread.name` does not
/// reach the system on Linux; a name keeps at most 15 bytes there.
public enum ThreadName {
  public static func setCurrent(_ name: String) {
    rb_set_thread_name(name)
  }
}
