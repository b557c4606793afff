// Kernel micro-benchmark: GB/s of the squared-L2 and inner-product kernels at dimension 384,
// one-to-many over a block of rows that stays in cache (so it measures the kernel, not DRAM),
// for every ISA level this build and CPU have. Builds natively and for wasm; prints one JSON
// object per line on stdout (bench/kernels/run.mjs merges native and wasm runs into
// bench/kernels/results/ and prints the table).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "quiver/isa.hpp"
#include "tools/workload.hpp"
#include "simd/kernels.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

// Runs fn repeatedly for at least min_seconds and returns seconds per call (best of 3 rounds).
template <typename Fn>
double time_per_call(Fn&& fn, double min_seconds) {
  double best = 1e30;
  for (int round = 0; round < 3; ++round) {
    size_t calls = 0;
    const auto start = clock_type::now();
    double elapsed = 0;
    do {
      for (int i = 0; i < 16; ++i) fn();
      calls += 16;
      elapsed = std::chrono::duration<double>(clock_type::now() - start).count();
    } while (elapsed < min_seconds);
    best = std::min(best, elapsed / double(calls));
  }
  return best;
}

volatile float g_sink;

}  // namespace

int main(int argc, char** argv) {
  const size_t dim = 384;
  const size_t rows = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 512;  // 768 KiB of rows
  const double min_seconds = argc > 2 ? std::strtod(argv[2], nullptr) : 0.2;
  const auto data = quiver::unit_gaussian_vectors(rows + 1, dim, 42);
  const float* query = data.data();
  const float* block = data.data() + dim;
  std::vector<float> out(rows);
  const double bytes = double(rows) * dim * sizeof(float);

  for (quiver::Isa isa : quiver::available_isas()) {
    const auto k = quiver::simd::kernel_table(isa);
    struct Case {
      const char* name;
      quiver::simd::DistanceManyFn fn;
    } cases[] = {{"l2sq_f32", k.l2sq_f32_many}, {"dot_f32", k.dot_f32_many}};
    for (const auto& c : cases) {
      const double s = time_per_call(
          [&] {
            c.fn(query, block, dim, rows, dim, out.data());
            g_sink = out[rows / 2];
          },
          min_seconds);
      std::printf(
          "{\"target\":\"%s\",\"variant\":\"%s\",\"isa\":\"%s\",\"kernel\":\"%s\",\"dim\":%zu,"
          "\"rows\":%zu,\"ns_per_row\":%.4f,\"gb_per_s\":%.4f}\n",
          quiver::build_variant()[0] == 'n' ? "native" : "wasm", quiver::build_variant(), quiver::isa_name(isa), c.name,
          dim, rows, s / double(rows) * 1e9, bytes / s / 1e9);
      std::fflush(stdout);
    }
  }
  return 0;
}
