// What the quiver command does when it is interrupted (SIGINT, SIGTERM, SIGHUP).
#pragma once

namespace quiver::cli {

// Installs handlers that remove the temporary file of any save in progress (so `build`
// interrupted while writing leaves neither a half-written index nor its "*.tmp-*" file) and
// then let the signal end the process as it would have without them (the parent sees the
// signal; a shell reports exit status 128 + signal number). A signal the process inherited as
// ignored (nohup) stays ignored.
//
// Test hook: with QUIVER_TEST_PAUSE_BEFORE_RENAME=1 in the environment, a save stops for up to
// a minute after its bytes are flushed and before the rename, and says so on stderr, so a test
// can deliver a signal at exactly that point and watch the real cleanup run.
void install_signal_cleanup();

}  // namespace quiver::cli
