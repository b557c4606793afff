// Codes-only accuracy of the quantised index: recall@10 against exact search for each refine
// plane width (refine_bits 0..4) and re-scoring depth, with the bytes each vector costs. No
// f32 vectors are kept; no timings (recall does not depend on load, so this runs anywhere).
// Prints one JSON object per line and, at the end, the Markdown table the README quotes.
//
// Knobs (environment):
//   QUIVER_BENCH_WORKLOAD  clustered | embedding | both (default both)
//   QUIVER_BENCH_ROWS      rows (default 100000); QUIVER_BENCH_QUERIES (default 500); QUIVER_BENCH_DIM (384)
//   QUIVER_BENCH_REFINE    refine widths (default "0 1 2 3 4")
//   QUIVER_BENCH_DEPTHS    rerank depths (default "0 1 2 3 4 6 10"; 0 = the index's default)
//   QUIVER_BENCH_METRIC    l2 | ip | cosine (default cosine)
//   QUIVER_BENCH_LISTS     0 (default: every search scans every code) | auto | N partitions, searched
//                          at the index's default probes
// Workloads: the clustered mixture (64 clusters, mixture seed 42, base seed 43, queries seed
// 13) and the embedding-like one (1,000 topics, same seeds, queries drawn as queries).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "quiver/quiver.hpp"
#include "../common/recall_bench.hpp"
#include "tools/workload.hpp"

using namespace quiver;
using namespace quiver::bench;

int main() {
  std::vector<std::string> workloads = words(env("QUIVER_BENCH_WORKLOAD", "both"));
  if (workloads.size() == 1 && workloads[0] == "both") workloads = {"clustered", "embedding"};
  const size_t n = std::strtoul(env("QUIVER_BENCH_ROWS", "100000").c_str(), nullptr, 10);
  const size_t nq = std::strtoul(env("QUIVER_BENCH_QUERIES", "500").c_str(), nullptr, 10);
  const size_t dim = std::strtoul(env("QUIVER_BENCH_DIM", "384").c_str(), nullptr, 10);
  const Metric metric = parse_metric(env("QUIVER_BENCH_METRIC", "cosine"));
  const std::string lists_knob = env("QUIVER_BENCH_LISTS", "0");
  const size_t lists = lists_knob == "auto" ? QuantizedIndexOptions::kAutoLists : std::stoul(lists_knob);
  std::vector<unsigned> widths;
  for (const auto& b : words(env("QUIVER_BENCH_REFINE", "0 1 2 3 4"))) widths.push_back(unsigned(std::stoul(b)));
  std::vector<size_t> depths;
  for (const auto& d : words(env("QUIVER_BENCH_DEPTHS", "0 1 2 3 4 6 10"))) depths.push_back(std::stoul(d));

  std::string table;
  for (const auto& name : workloads) {
    Workload w;
    w.name = name;
    w.metric = metric;
    w.n = n;
    w.nq = nq;
    w.dim = dim;
    if (name == "clustered") {
      w.base = clustered_vectors(n, dim, 64, 42, 43);
      w.queries = clustered_vectors(nq, dim, 64, 42, 13);
    } else {
      w.base = embedding_like_vectors(n, dim, 1000, 42, 43);
      w.queries = embedding_like_vectors(nq, dim, 1000, 42, 13, EmbeddingRole::query);
    }
    w.ids.resize(n);
    for (size_t i = 0; i < n; ++i) w.ids[i] = i;
    {
      FlatIndex flat({dim, metric});
      flat.add(w.ids, w.base);
      w.truth.resize(nq * kK);
      flat.search_batch(w.queries.data(), nq, kK, w.truth.data());
    }
    std::vector<Neighbor> out(nq * kK);
    for (unsigned refine : widths) {
      QuantizedIndexOptions o;
      o.dim = dim;
      o.metric = metric;
      o.bits = 4;
      o.keep_vectors = false;
      o.refine_bits = refine;
      o.lists = lists;
      QuantizedIndex index(o);
      index.add(w.ids, w.base);
      if (refine == widths.front()) {
        table += "\n" + name + " (" + std::to_string(n) + " x " + std::to_string(dim) + ", " + metric_name(metric) +
                 ", " + std::to_string(nq) + " queries" +
                 (index.lists() > 0 ? ", " + std::to_string(index.lists()) + " lists, " +
                                          std::to_string(index.default_probes()) + " probes"
                                    : std::string()) +
                 "), recall@10 by depth; bytes per vector: codes (fast-scan + refine, with their scalars) / "
                 "everything the index holds (memory_bytes / n)\n\n| refine bits | code B | total B |";
        for (size_t d : depths) table += d == 0 ? " default |" : " depth " + std::to_string(d) + " |";
        table += "\n|---|---|---|";
        for (size_t i = 0; i < depths.size(); ++i) table += "---|";
        table += "\n";
      }
      const double total = double(index.memory_bytes()) / double(n);
      char row[256];
      std::snprintf(row, sizeof row, "| %u | %zu | %.1f |", refine, index.code_bytes_per_vector(), total);
      table += row;
      for (size_t d : depths) {
        if (d > 0 && refine == 0) {  // nothing to re-score with
          table += " – |";
          continue;
        }
        QuantizedSearchParams p;
        p.rerank = d;
        index.search_batch(w.queries.data(), nq, kK, out.data(), p);
        const double r = recall(w, out);
        std::printf(
            "{\"workload\":\"%s\",\"rows\":%zu,\"dim\":%zu,\"queries\":%zu,\"metric\":\"%s\",\"bits\":4,"
            "\"refine_bits\":%u,\"depth\":%zu,\"recall\":%.4f,\"code_bytes_per_vector\":%zu,"
            "\"memory_bytes\":%zu,\"lists\":%zu,\"probes\":%zu,\"target\":\"%s\",\"isa\":\"%s\"}\n",
            name.c_str(), n, dim, nq, metric_name(metric), refine, d, r, index.code_bytes_per_vector(),
            index.memory_bytes(), index.lists(), index.default_probes(), target(), isa_name(index.isa()));
        std::fflush(stdout);
        std::snprintf(row, sizeof row, " %.4f |", r);
        table += row;
      }
      table += "\n";
    }
  }
  std::printf("%s", table.c_str());
}
