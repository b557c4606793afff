// Filtered search through a Collection (quiver/collection.hpp): recall@10 against the exact
// filtered answer, QPS and the plan, per index kind, filter kind and selectivity, beside each
// kind's unfiltered QPS measured in the same process.
//
// Workload: embedding-like vectors (100,000 x 384, cosine; QUIVER_BENCH_ROWS / _QUERIES / _DIM
// override) and three attributes per vector:
//   r       uniform integer in [0, 1000): {"r":{"$lt":s*1000}} keeps a random fraction s
//   c       the vector's rank (per mille) along a fixed random direction: {"c":{"$lt":s*1000}}
//           keeps the fraction s of vectors furthest along it, a region a query may be far from
//   tenant  Zipf-sized tenants (1,000, exponent 1.1): {"tenant":"tK"} for the tenant whose share
//           is nearest 10 %, 1 % and 0.1 %
// Selectivities 0.1 %, 1 %, 10 %, 50 %, 100 % (random and correlated). The exact answer comes from
// a flat collection with the same records (prefilter + exact scan). Kinds (QUIVER_BENCH_KINDS):
//   flat, hnsw (M 16, efConstruction 200, ef 64), hnsw-ef128, quantized-lists (4-bit, lists auto,
//   f32 kept), quantized-lists-rerank4 (the same, rerank 4).
// QUIVER_BENCH_EXPORT=DIR writes the workload and the exact answers for the peers and stops.
// Output: a line per (kind, filter) "| ... |" for people and one "json {...}" line each for
// bench/filtered/run.mjs.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "quiver/quiver.hpp"
#include "tools/workload.hpp"

namespace {

using clock_type = std::chrono::steady_clock;
double since(clock_type::time_point t) { return std::chrono::duration<double>(clock_type::now() - t).count(); }

std::string env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

struct FilterCase {
  std::string kind;  // random, correlated, tenant, none
  double selectivity = 1;
  std::string json;
  size_t matching = 0;
};

struct KindConfig {
  std::string name, index;
  std::map<std::string, std::string> knobs;
  size_t ef = 0;
  std::optional<size_t> rerank;
};

std::vector<KindConfig> kind_configs() {
  std::vector<KindConfig> all = {
      {"flat", "flat", {}, 0, std::nullopt},
      {"hnsw", "hnsw", {{"M", "16"}, {"ef_construction", "200"}}, 0, std::nullopt},
      {"hnsw-ef128", "hnsw", {{"M", "16"}, {"ef_construction", "200"}}, 128, std::nullopt},
      {"quantized-lists", "quantized", {{"bits", "4"}, {"lists", "auto"}}, 0, std::nullopt},
      {"quantized-lists-rerank4", "quantized", {{"bits", "4"}, {"lists", "auto"}}, 0, size_t(4)},
  };
  const std::string pick = env("QUIVER_BENCH_KINDS", "");
  if (pick.empty()) return all;
  std::vector<KindConfig> out;
  for (const KindConfig& k : all)
    if ((" " + pick + " ").find(" " + k.name + " ") != std::string::npos) out.push_back(k);
  return out;
}

}  // namespace

int main() {
  using namespace quiver;
  const size_t n = std::strtoul(env("QUIVER_BENCH_ROWS", "100000").c_str(), nullptr, 10);
  const size_t nq = std::strtoul(env("QUIVER_BENCH_QUERIES", "200").c_str(), nullptr, 10);
  const size_t dim = std::strtoul(env("QUIVER_BENCH_DIM", "384").c_str(), nullptr, 10);
  const double min_seconds = std::strtod(env("QUIVER_BENCH_SECONDS", "1").c_str(), nullptr);
  constexpr size_t k = 10;
  std::fprintf(stderr, "workload: embedding-like %zu x %zu, %zu queries\n", n, dim, nq);
  const std::vector<float> base = embedding_like_vectors(n, dim, 1000, 42, 43);
  const std::vector<float> queries = embedding_like_vectors(nq, dim, 1000, 42, 13, EmbeddingRole::query);

  // Attributes.
  std::mt19937_64 rng(7);
  std::vector<int> r(n), c(n), tenant(n);
  for (size_t i = 0; i < n; ++i) r[i] = int(rng() % 1000);
  {
    std::normal_distribution<double> g;
    std::vector<double> d(dim), proj(n);
    for (double& x : d) x = g(rng);
    for (size_t i = 0; i < n; ++i) {
      double s = 0;
      for (size_t j = 0; j < dim; ++j) s += d[j] * base[i * dim + j];
      proj[i] = s;
    }
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return proj[a] > proj[b]; });
    for (size_t rank = 0; rank < n; ++rank) c[order[rank]] = int(rank * 1000 / n);
  }
  constexpr size_t kTenants = 1000;
  std::vector<double> cdf(kTenants);
  double total = 0;
  for (size_t t = 0; t < kTenants; ++t) cdf[t] = total += 1.0 / std::pow(double(t + 1), 1.1);
  std::vector<size_t> tenant_size(kTenants);
  std::uniform_real_distribution<double> u(0, total);
  for (size_t i = 0; i < n; ++i) {
    tenant[i] = int(std::lower_bound(cdf.begin(), cdf.end(), u(rng)) - cdf.begin());
    ++tenant_size[tenant[i]];
  }

  std::vector<Record> records(n);
  for (size_t i = 0; i < n; ++i) {
    records[i].id = "doc-" + std::to_string(i);
    records[i].values.assign(base.begin() + long(i * dim), base.begin() + long((i + 1) * dim));
    records[i].metadata = "{\"r\":" + std::to_string(r[i]) + ",\"c\":" + std::to_string(c[i]) + ",\"tenant\":\"t" +
                          std::to_string(tenant[i]) + "\"}";
  }

  std::vector<FilterCase> filters = {{"none", 1, "", n}};
  for (double s : {0.001, 0.01, 0.1, 0.5, 1.0}) {
    const int cut = int(std::lround(s * 1000));
    filters.push_back({"random", s, "{\"r\":{\"$lt\":" + std::to_string(cut) + "}}", 0});
    filters.push_back({"correlated", s, "{\"c\":{\"$lt\":" + std::to_string(cut) + "}}", 0});
  }
  for (double s : {0.1, 0.01, 0.001}) {
    size_t best = 0;
    for (size_t t = 0; t < kTenants; ++t)
      if (std::fabs(double(tenant_size[t]) / n - s) < std::fabs(double(tenant_size[best]) / n - s)) best = t;
    filters.push_back({"tenant", double(tenant_size[best]) / n, "{\"tenant\":\"t" + std::to_string(best) + "\"}", 0});
  }

  const auto make = [&](const KindConfig& cfg, double& build_s) {
    CollectionOptions o;
    o.dim = dim;
    o.metric = Metric::cosine;
    o.index = cfg.index;
    o.knobs = cfg.knobs;
    o.fields = {{"r", FieldType::number}, {"c", FieldType::number}, {"tenant", FieldType::string}};
    Collection col(o);
    const auto t0 = clock_type::now();
    for (size_t at = 0; at < n; at += 10000)
      col.upsert(std::vector<Record>(records.begin() + long(at), records.begin() + long(std::min(n, at + 10000))));
    build_s = since(t0);
    return col;
  };

  // The exact answers.
  double exact_build = 0;
  KindConfig flat_cfg{"flat", "flat", {}, 0, std::nullopt};
  const Collection exact = make(flat_cfg, exact_build);
  std::vector<std::vector<std::set<std::string>>> truth(filters.size(), std::vector<std::set<std::string>>(nq));
  for (size_t f = 0; f < filters.size(); ++f) {
    QueryOptions o;
    o.top_k = k;
    o.filter = filters[f].json;
    for (size_t q = 0; q < nq; ++q) {
      const QueryResult res = exact.query(queries.data() + q * dim, dim, o);
      filters[f].matching = res.plan.matching;
      for (const Match& m : res.matches) truth[f][q].insert(std::get<std::string>(m.id));
    }
  }
  std::fprintf(stderr, "exact answers ready\n");
  // QUIVER_BENCH_EXPORT=DIR: the workload for the peers (bench/filtered/peers.mjs) — vectors and
  // queries as raw little-endian float32, the attributes, the filters and the exact answers as
  // JSON — then stop.
  if (const std::string dir = env("QUIVER_BENCH_EXPORT", ""); !dir.empty()) {
    const auto write = [&](const std::string& name, const std::string& text) {
      FILE* f = std::fopen((dir + "/" + name).c_str(), "wb");
      if (f == nullptr) {
        std::fprintf(stderr, "cannot write %s/%s\n", dir.c_str(), name.c_str());
        std::exit(1);
      }
      std::fwrite(text.data(), 1, text.size(), f);
      std::fclose(f);
    };
    write("base.f32", std::string(reinterpret_cast<const char*>(base.data()), base.size() * 4));
    write("queries.f32", std::string(reinterpret_cast<const char*>(queries.data()), queries.size() * 4));
    std::string attrs = "{\"rows\":" + std::to_string(n) + ",\"dim\":" + std::to_string(dim) +
                        ",\"queries\":" + std::to_string(nq) + ",\"metric\":\"cosine\",\"r\":[";
    for (size_t i = 0; i < n; ++i) attrs += (i ? "," : "") + std::to_string(r[i]);
    attrs += "],\"c\":[";
    for (size_t i = 0; i < n; ++i) attrs += (i ? "," : "") + std::to_string(c[i]);
    attrs += "],\"tenant\":[";
    for (size_t i = 0; i < n; ++i) attrs += (i ? "," : "") + std::to_string(tenant[i]);
    attrs += "],\"filters\":[";
    for (size_t f = 0; f < filters.size(); ++f) {
      std::string escaped;
      for (char ch : filters[f].json) escaped += ch == '"' ? std::string("\\\"") : std::string(1, ch);
      attrs += std::string(f ? "," : "") + "{\"kind\":\"" + filters[f].kind +
               "\",\"selectivity\":" + std::to_string(filters[f].selectivity) + ",\"filter\":\"" + escaped +
               "\",\"matching\":" + std::to_string(filters[f].matching) + ",\"truth\":[";
      for (size_t q = 0; q < nq; ++q) {
        attrs += q ? ",[" : "[";
        size_t j = 0;
        for (const std::string& id : truth[f][q]) attrs += (j++ ? "," : "") + id.substr(4);  // "doc-N" -> N
        attrs += "]";
      }
      attrs += "]}";
    }
    attrs += "]}";
    write("workload.json", attrs);
    std::fprintf(stderr, "exported the workload to %s\n", dir.c_str());
    return 0;
  }

  std::printf(
      "| target | isa | kind | filter | selectivity | matching | recall@10 | short | QPS | vs unfiltered | plan |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  // Kinds with the same index and knobs (hnsw and hnsw-ef128, ...) share one build.
  std::unique_ptr<Collection> built;
  const KindConfig* built_for = nullptr;
  double build_s = 0;
  const std::vector<KindConfig> configs = kind_configs();
  for (const KindConfig& cfg : configs) {
    if (built_for == nullptr || built_for->index != cfg.index || built_for->knobs != cfg.knobs) {
      built.reset();
      built = std::make_unique<Collection>(make(cfg, build_s));
      std::fprintf(stderr, "%s: built in %.1f s\n", cfg.name.c_str(), build_s);
    }
    built_for = &cfg;
    const Collection& col = *built;
    const CollectionStats stats = col.describe();
    double unfiltered_qps = 0;
    for (size_t f = 0; f < filters.size(); ++f) {
      QueryOptions o;
      o.top_k = k;
      o.filter = filters[f].json;
      o.search.ef = cfg.ef;
      o.search.rerank = cfg.rerank;
      size_t hits = 0, wanted = 0, short_results = 0;
      std::string plan;
      for (size_t q = 0; q < nq; ++q) {
        const QueryResult res = col.query(queries.data() + q * dim, dim, o);
        plan = res.plan.strategy;
        if (res.matches.size() < std::min(k, res.plan.matching)) ++short_results;
        for (const Match& m : res.matches) hits += truth[f][q].count(std::get<std::string>(m.id));
        wanted += truth[f][q].size();
      }
      // Timed passes over the query set (at least 3 and min_seconds).
      std::vector<double> passes;
      const auto start = clock_type::now();
      size_t done = 0;
      do {
        const auto t = clock_type::now();
        for (size_t q = 0; q < nq; ++q) col.query(queries.data() + q * dim, dim, o);
        passes.push_back(double(nq) / since(t));
        done += nq;
      } while (passes.size() < 3 || since(start) < min_seconds);
      const double qps = double(done) / since(start);
      if (filters[f].kind == "none") unfiltered_qps = qps;
      const double recall = wanted ? double(hits) / double(wanted) : 1.0;
      std::printf("| %s | %s | %s | %s | %.4g | %zu | %.4f | %zu | %.1f | %.2f | %s |\n", build_variant(),
                  isa_name(active_isa()), cfg.name.c_str(), filters[f].kind.c_str(), filters[f].selectivity,
                  filters[f].matching, recall, short_results, qps, qps / unfiltered_qps, plan.c_str());
      std::string pass_list;
      for (size_t i = 0; i < passes.size(); ++i) pass_list += (i ? "," : "") + std::to_string(passes[i]);
      std::printf(
          "json {\"target\":\"%s\",\"isa\":\"%s\",\"kind\":\"%s\",\"index\":\"%s\",\"filter_kind\":\"%s\","
          "\"selectivity\":%.6g,\"filter\":%s,\"matching\":%zu,\"rows\":%zu,\"queries\":%zu,\"dim\":%zu,"
          "\"recall\":%.5f,\"short_results\":%zu,\"qps\":%.2f,\"unfiltered_qps\":%.2f,\"plan\":\"%s\","
          "\"build_s\":%.3f,\"index_bytes\":%zu,\"id_bytes\":%zu,\"metadata_bytes\":%zu,\"column_bytes\":%zu,"
          "\"ef\":%zu,\"rerank\":%s,\"passes_qps\":[%s]}\n",
          build_variant(), isa_name(active_isa()), cfg.name.c_str(), stats.index_detail.c_str(),
          filters[f].kind.c_str(), filters[f].selectivity,
          filters[f].json.empty() ? "null"
                                  : ("\"" +
                                     [&] {
                                       std::string e;
                                       for (char ch : filters[f].json)
                                         e += ch == '"' ? std::string("\\\"") : std::string(1, ch);
                                       return e;
                                     }() +
                                     "\"")
                                        .c_str(),
          filters[f].matching, n, nq, dim, recall, short_results, qps, unfiltered_qps, plan.c_str(), build_s,
          stats.index_bytes, stats.id_bytes, stats.metadata_bytes, stats.column_bytes, cfg.ef,
          cfg.rerank ? std::to_string(*cfg.rerank).c_str() : "null", pass_list.c_str());
      std::fflush(stdout);
    }
  }
  return 0;
}
