// Writes the committed index files of tests/cpp/data/v1/ and their expected answers. Run once
// from the version whose files the suite must keep reading (it was run before the shared slot
// table replaced each kind's own id bookkeeping); running it again on later code would
// overwrite the evidence, so it is built but not registered as a test.
//   quiver_write_index_files_v1 <dir>
#include <cstdio>
#include <string>
#include <vector>

#include "index_files_v1.hpp"

namespace {

using namespace quiver;
using namespace quiver::test::v1;

void write(const std::string& path, const void* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

template <typename Index>
void write_fixture(const std::string& dir, const char* name, const Index& index,
                   const std::vector<Mode<Index>>& modes) {
  const std::vector<uint8_t> bytes = index.serialize();
  write(dir + "/" + name + ".qvr", bytes.data(), bytes.size());
  const std::string text = answers(index, modes);
  write(dir + "/" + name + ".expected", text.data(), text.size());
  std::printf("%s: %zu bytes\n", name, bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <dir>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  for (const FlatFixture& f : kFlat) {
    FlatIndex index({kDim, f.metric});
    fill(index);
    write_fixture(dir, f.name, index, flat_modes());
  }
  for (const QuantizedFixture& f : kQuantized) {
    QuantizedIndex index(quantized_options(f));
    fill(index);
    write_fixture(dir, f.name, index, quantized_modes(f.keep_vectors));
  }
  for (const HnswFixture& f : kHnsw) {
    HnswIndex index(hnsw_options(f));
    fill(index);
    write_fixture(dir, f.name, index, hnsw_modes());
  }
  return 0;
}
