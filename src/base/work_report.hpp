// What a long step calls between its pieces: the calling thread's WorkObserver hears the
// progress and may stop the call (include/quiver/work_observer.hpp). Call it from the thread
// that made the call (outside parallel_for bodies), before anything is committed.
#pragma once

#include <cstddef>

#include "quiver/work_observer.hpp"

namespace quiver::core {

// Whether an observer is installed (a step may then cut its work into more pieces).
bool work_observed() noexcept;

// Tells the observer that `done` of `total` pieces of `step` are done; throws
// Error(ErrorCode::Aborted) when it answers false.
void report_work(const char* step, size_t done, size_t total);

}  // namespace quiver::core
