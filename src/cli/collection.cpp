// `quiver collection build` and `quiver collection query`: a collection (ids, metadata,
// filters; quiver/collection.hpp) from the command line.
//
//   quiver collection build base.fvecs --records docs.jsonl --field lang:string --field year:number \
//       --index hnsw --knob M=16 -o docs.qvr
//   quiver collection query docs.qvr --queries q.fvecs --top-k 5 --filter '{"lang":"en"}' --json
//
// --records is JSON Lines, one line per vector in order: {"id": "doc-1" | 7, "metadata": {...},
// "namespace": "..."} (metadata and namespace optional); without it the ids are the row numbers.
// A line with another key, a bad id or bad metadata is an error naming the line.
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "quiver/quiver.hpp"

namespace quiver::cli {
namespace {

struct CollectionBuildOptions {
  std::string input, format, records, output, index = "hnsw", metric = "cosine";
  size_t dim = 0;
  std::vector<std::string> fields, knobs;
  bool json = false, quiet = false;
};

struct CollectionQueryOptions {
  std::string file, queries, format, filter, ns;
  size_t dim = 0, top_k = 10, first = 0, count = 1, ef = 0, probes = 0;
  bool metadata = false, values = false, json = false, ns_given = false;
};

[[noreturn]] void bad(const std::string& message) { throw Error(ErrorCode::InvalidArgument, message); }

// "name:type" -> a field; "name=value" -> a knob.
FieldSpec parse_field(const std::string& text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0)
    bad("--field takes name:type (string, number, boolean, tags), got '" + text + "'");
  return {text.substr(0, colon), parse_field_type(text.substr(colon + 1))};
}

RecordId parse_id(const nlohmann::json& id, const std::string& where) {
  if (id.is_string()) return id.get<std::string>();
  if (id.is_number_unsigned()) return id.get<uint64_t>();
  bad(where + ": \"id\" must be a string or a non-negative integer");
}

std::vector<Record> read_records(const std::string& path, const io::Vectors& data) {
  std::vector<Record> records(data.rows);
  for (size_t i = 0; i < data.rows; ++i) {
    records[i].id = uint64_t(i);
    records[i].values.assign(data.data.begin() + long(i * data.dim), data.data.begin() + long((i + 1) * data.dim));
  }
  if (path.empty()) return records;
  std::ifstream in(path);
  if (!in) throw Error(ErrorCode::IoError, path + ": cannot be opened");
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(n + 1);
    if (n >= data.rows) bad(where + ": more records than the " + std::to_string(data.rows) + " vectors");
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      bad(where + ": not JSON (" + e.what() + ")");
    }
    if (!j.is_object()) bad(where + ": a record is a JSON object");
    for (const auto& [key, value] : j.items()) {
      if (key == "id") {
        records[n].id = parse_id(value, where);
      } else if (key == "metadata") {
        if (!value.is_object()) bad(where + ": \"metadata\" must be an object");
        records[n].metadata = value.dump();
      } else if (key == "namespace") {
        if (!value.is_string()) bad(where + ": \"namespace\" must be a string");
        records[n].ns = value.get<std::string>();
      } else {
        bad(where + ": unknown key \"" + key + "\" (a record has id, metadata, namespace)");
      }
    }
    if (!j.contains("id")) bad(where + ": a record needs an \"id\"");
    ++n;
  }
  if (n != data.rows) bad(path + ": " + std::to_string(n) + " records for " + std::to_string(data.rows) + " vectors");
  return records;
}

int run_collection_build(const CollectionBuildOptions& o) {
  CollectionOptions c;
  c.index = o.index;
  c.metric = parse_metric(o.metric);
  for (const std::string& f : o.fields) c.fields.push_back(parse_field(f));
  for (const std::string& k : o.knobs) {
    const size_t eq = k.find('=');
    if (eq == std::string::npos || eq == 0) bad("--knob takes name=value, got '" + k + "'");
    if (!c.knobs.emplace(k.substr(0, eq), k.substr(eq + 1)).second) bad("--knob " + k.substr(0, eq) + " given twice");
  }
  const io::Vectors data = load_vectors(o.input, o.format, o.dim);
  if (data.rows == 0) bad(o.input + ": no vectors");
  c.dim = data.dim;
  Collection collection(c);  // the options are checked before the records are read
  const std::vector<Record> records = read_records(o.records, data);
  {
    Progress progress("build", records.size(), o.quiet);
    const size_t chunk = std::max<size_t>(1024, records.size() / 100);
    for (size_t at = 0; at < records.size(); at += chunk) {
      const size_t end = std::min(records.size(), at + chunk);
      collection.insert(std::vector<Record>(records.begin() + long(at), records.begin() + long(end)));
      progress.update(end);
    }
    progress.finish();
  }
  collection.save(o.output);
  const CollectionStats s = collection.describe();
  if (o.json) {
    std::cout << nlohmann::json{{"index", s.index},
                                {"records", s.size},
                                {"dim", s.dim},
                                {"index_bytes", s.index_bytes},
                                {"id_bytes", s.id_bytes},
                                {"metadata_bytes", s.metadata_bytes},
                                {"column_bytes", s.column_bytes},
                                {"output", o.output}}
                     .dump(2)
              << "\n";
  } else {
    std::cout << "built a collection of " << s.size << " records (" << s.index << ": " << s.index_detail << ")\nwrote "
              << o.output << "\n";
  }
  return 0;
}

nlohmann::json id_json(const RecordId& id) {
  if (const uint64_t* n = std::get_if<uint64_t>(&id)) return *n;
  return std::get<std::string>(id);
}

int run_collection_query(const CollectionQueryOptions& o) {
  const Collection collection = Collection::load_file(o.file);
  const io::Vectors q = load_vectors(o.queries, o.format, o.dim);
  if (o.first >= q.rows)
    bad("--first " + std::to_string(o.first) + " is past the " + std::to_string(q.rows) + " queries");
  QueryOptions opt;
  opt.top_k = o.top_k;
  opt.filter = o.filter;
  if (o.ns_given) opt.ns = o.ns;
  opt.return_metadata = o.metadata;
  opt.return_values = o.values;
  opt.search.ef = o.ef;
  opt.search.probes = o.probes;
  nlohmann::json all = nlohmann::json::array();
  for (size_t i = o.first; i < std::min(q.rows, o.first + o.count); ++i) {
    const QueryResult r = collection.query(q.data.data() + i * q.dim, q.dim, opt);
    if (o.json) {
      nlohmann::json matches = nlohmann::json::array();
      for (const Match& m : r.matches) {
        nlohmann::json j{{"id", id_json(m.id)}, {"distance", m.distance}};
        if (!m.ns.empty()) j["namespace"] = m.ns;
        if (o.metadata)
          j["metadata"] = m.metadata.empty() ? nlohmann::json::object() : nlohmann::json::parse(m.metadata);
        if (o.values) j["values"] = m.values;
        matches.push_back(j);
      }
      all.push_back(
          {{"query", i},
           {"matches", matches},
           {"plan", {{"strategy", r.plan.strategy}, {"matching", r.plan.matching}, {"total", r.plan.total}}}});
    } else {
      std::cout << "query " << i << " (" << r.plan.strategy << ", " << r.plan.matching << " of " << r.plan.total
                << " match):\n";
      for (const Match& m : r.matches) {
        std::cout << "  " << record_id_text(m.id) << "  " << m.distance;
        if (!m.ns.empty()) std::cout << "  [" << m.ns << "]";
        if (o.metadata && !m.metadata.empty()) std::cout << "  " << m.metadata;
        std::cout << "\n";
      }
    }
  }
  if (o.json) std::cout << all.dump(2) << "\n";
  return 0;
}

}  // namespace

void register_collection(CLI::App& app, Runner& run) {
  auto* group = app.add_subcommand("collection", "Collections: ids, metadata and filtered queries");
  group->require_subcommand(1);

  auto b = std::make_shared<CollectionBuildOptions>();
  auto* build = group->add_subcommand("build", "Build a collection from a vector file and JSON Lines records");
  build->add_option("input", b->input, "Vectors: .fvecs, .fbin, .npy or raw float32 (.f32, needs --dim)")->required();
  build->add_option("-o,--output", b->output, "Collection file to write")->required();
  build->add_option("--records", b->records,
                    "JSON Lines, one per vector: {\"id\": ..., \"metadata\": {...}, \"namespace\": \"...\"}");
  build->add_option("--field", b->fields, "A filterable field, name:type (string, number, boolean, tags); repeatable");
  build->add_option("--index", b->index, "Index kind: flat, quantized, hnsw")->capture_default_str();
  build->add_option("--knob", b->knobs, "An index knob, name=value (e.g. M=16, bits=4, lists=auto); repeatable");
  build->add_option("--metric", b->metric, "l2, ip or cosine")->capture_default_str();
  build->add_option("--format", b->format, "Input format if the extension does not say: fvecs, fbin, npy, raw");
  build->add_option("--dim", b->dim, "Dimension of raw float32 input");
  build->add_flag("--json", b->json, "Machine-readable summary");
  build->add_flag("-q,--quiet", b->quiet, "No progress bar");
  build->callback([b, &run] { run = [b] { return run_collection_build(*b); }; });

  auto q = std::make_shared<CollectionQueryOptions>();
  auto* query = group->add_subcommand("query", "Query a collection file, with a filter and a namespace");
  query->add_option("file", q->file, "Collection file")->required();
  query->add_option("--queries", q->queries, "Query vectors (same formats as build)")->required();
  query->add_option("--format", q->format, "Query file format if the extension does not say");
  query->add_option("--dim", q->dim, "Dimension of raw float32 queries");
  query->add_option("--first", q->first, "First query row")->capture_default_str();
  query->add_option("--count", q->count, "Queries to run from --first")->capture_default_str();
  query->add_option("-k,--top-k", q->top_k, "Results per query")->capture_default_str();
  query->add_option("--filter", q->filter, "A filter, as JSON: {\"lang\":\"en\",\"year\":{\"$gte\":2020}}");
  query->add_option("--namespace", q->ns, "Only this namespace");
  query->add_option("--ef", q->ef, "Hnsw: search beam width (0 = the file's)");
  query->add_option("--probes", q->probes, "Partitioned quantized: lists to scan (0 = the default)");
  query->add_flag("--metadata", q->metadata, "Print each match's metadata");
  query->add_flag("--values", q->values, "Print each match's vector (json)");
  query->add_flag("--json", q->json, "Machine-readable output");
  query->callback([q, query, &run] {
    q->ns_given = query->count("--namespace") > 0;
    run = [q] { return run_collection_query(*q); };
  });
}

}  // namespace quiver::cli
