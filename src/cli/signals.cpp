#include "cli/signals.hpp"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include "container/file.hpp"

namespace quiver::cli {
namespace {

constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Only async-signal-safe calls from here on (unlink, signal, raise, write, usleep).
extern "C" void remove_temp_files_and_die(int sig) {
  io::remove_temp_files_signal_safe();
  std::signal(sig, SIG_DFL);
  // Blocked while this handler runs; delivered with the default action (terminate) once it returns.
  std::raise(sig);
}

void pause_before_rename(const char* temp_path) {
  static const char kPrefix[] = "quiver: test hook: paused before renaming ";
  ssize_t ignored = ::write(STDERR_FILENO, kPrefix, sizeof kPrefix - 1);
  ignored = ::write(STDERR_FILENO, temp_path, std::strlen(temp_path));
  ignored = ::write(STDERR_FILENO, "\n", 1);
  (void)ignored;
  for (int i = 0; i < 600; ++i) ::usleep(100 * 1000);  // bounded: a test that never signals still ends
}

}  // namespace

void install_signal_cleanup() {
  struct sigaction action {};
  action.sa_handler = remove_temp_files_and_die;
  sigemptyset(&action.sa_mask);
  for (int sig : kCleanupSignals) sigaddset(&action.sa_mask, sig);  // one cleanup at a time
  for (int sig : kCleanupSignals) {
    struct sigaction previous {};
    if (sigaction(sig, nullptr, &previous) == 0 && previous.sa_handler == SIG_IGN) continue;
    sigaction(sig, &action, nullptr);
  }
  const char* hook = std::getenv("QUIVER_TEST_PAUSE_BEFORE_RENAME");
  if (hook != nullptr && std::strcmp(hook, "1") == 0) io::set_before_rename_hook(pause_before_rename);
}

}  // namespace quiver::cli
