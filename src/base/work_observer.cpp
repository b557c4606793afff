// The calling thread's WorkObserver (include/quiver/work_observer.hpp) and the report that long
// steps make to it (base/work_report.hpp).
#include "base/work_report.hpp"

#include <string>
#include <utility>

#include "quiver/error.hpp"

namespace quiver {
namespace {
thread_local WorkObserver current;
}  // namespace

WorkObserverScope::WorkObserverScope(WorkObserver observer) : previous_(std::move(current)) {
  current = std::move(observer);
}
WorkObserverScope::~WorkObserverScope() { current = std::move(previous_); }

namespace core {

bool work_observed() noexcept { return static_cast<bool>(current); }

void report_work(const char* step, size_t done, size_t total) {
  if (current && !current(step, done, total)) {
    throw Error(ErrorCode::Aborted, std::string("stopped by the caller during ") + step + " (" + std::to_string(done) +
                                        " of " + std::to_string(total) + "); nothing was changed");
  }
}

}  // namespace core
}  // namespace quiver
