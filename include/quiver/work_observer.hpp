// Progress of the long steps inside one call, and a way to stop them. An add that trains (or
// re-trains) a partitioned quantised index runs k-means and re-assigns every vector inside that
// one add() — seconds at 100k vectors in wasm — and a caller showing progress or offering
// cancel needs to hear from it before it returns. A WorkObserver installed on the calling
// thread is called between the pieces of such a step:
//
//   observer("training", done, total)    k-means: `done` of `total` pieces of its rounds
//   observer("assigning", done, total)   every vector to its nearest list: `done` of `total`
//
// Returning false stops the call: it throws Error(ErrorCode::Aborted) and, like any refused
// add, leaves the index as it was (the partition is planned before anything is committed). The
// observer runs on the calling thread, never on a pool worker, and must not call the index.
#pragma once

#include <cstddef>
#include <functional>

namespace quiver {

using WorkObserver = std::function<bool(const char* step, size_t done, size_t total)>;

// Installs `observer` for the calls this thread makes while the scope lives; the one installed
// before is back afterwards (scopes nest).
class WorkObserverScope {
 public:
  explicit WorkObserverScope(WorkObserver observer);
  ~WorkObserverScope();
  WorkObserverScope(const WorkObserverScope&) = delete;
  WorkObserverScope& operator=(const WorkObserverScope&) = delete;

 private:
  WorkObserver previous_;
};

}  // namespace quiver
