// The files of tests/cpp/data/v1/, compiled into the suite by tests/cpp/CMakeLists.txt
// (the wasm test programs run in Node with an in-memory file system and cannot open the
// source tree).
#pragma once

#include <cstddef>
#include <cstdint>

namespace quiver::test {

struct EmbeddedFile {
  const char* name;  // file name without directory, e.g. "flat_l2.qvr"
  const uint8_t* data;
  size_t size;
};

extern const EmbeddedFile kIndexFilesV1[];
extern const size_t kIndexFilesV1Count;

}  // namespace quiver::test
