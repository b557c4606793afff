// The index kind registry (kind_registry.hpp), and the public kind names and numbers
// (quiver/index_file.hpp) that it answers.
#include "index/common/kind_registry.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "quiver/error.hpp"

namespace quiver {

// The built-in kinds, in id order: src/index/kinds.cpp.
const IndexKindEntry* const* built_in_index_kinds(size_t& count) noexcept;

namespace {

struct Registered {
  std::mutex mutex;
  std::vector<const IndexKindEntry*> kinds;
};

Registered& registered() {
  static Registered r;
  return r;
}

}  // namespace

std::vector<const IndexKindEntry*> index_kinds() {
  size_t n = 0;
  const IndexKindEntry* const* built_in = built_in_index_kinds(n);
  std::vector<const IndexKindEntry*> all(built_in, built_in + n);
  Registered& r = registered();
  const std::lock_guard<std::mutex> lock(r.mutex);
  all.insert(all.end(), r.kinds.begin(), r.kinds.end());
  return all;
}

const IndexKindEntry* find_index_kind(IndexKind id) noexcept {
  size_t n = 0;
  const IndexKindEntry* const* built_in = built_in_index_kinds(n);
  for (size_t i = 0; i < n; ++i) {
    if (built_in[i]->id == id) return built_in[i];
  }
  Registered& r = registered();
  const std::lock_guard<std::mutex> lock(r.mutex);
  for (const IndexKindEntry* e : r.kinds) {
    if (e->id == id) return e;
  }
  return nullptr;
}

const IndexKindEntry* find_index_kind(const std::string& name) noexcept {
  size_t n = 0;
  const IndexKindEntry* const* built_in = built_in_index_kinds(n);
  for (size_t i = 0; i < n; ++i) {
    if (name == built_in[i]->name) return built_in[i];
  }
  Registered& r = registered();
  const std::lock_guard<std::mutex> lock(r.mutex);
  for (const IndexKindEntry* e : r.kinds) {
    if (name == e->name) return e;
  }
  return nullptr;
}

const IndexKindEntry& index_kind(IndexKind id) {
  if (const IndexKindEntry* e = find_index_kind(id)) return *e;
  throw Error(ErrorCode::UnknownIndexKind,
              "unknown index kind " + std::to_string(uint32_t(id)) + " (this build knows " + known_index_kinds() + ")");
}

void register_index_kind(const IndexKindEntry& entry) {
  if (entry.name == nullptr || entry.name[0] == '\0' || entry.knobs == nullptr || entry.load == nullptr ||
      entry.open == nullptr || entry.create == nullptr || uint32_t(entry.id) == 0) {
    throw Error(ErrorCode::InvalidArgument, "an index kind entry needs a number, a name, knobs, load, open and create");
  }
  if (find_index_kind(entry.id) != nullptr || find_index_kind(std::string(entry.name)) != nullptr) {
    throw Error(ErrorCode::InvalidArgument, std::string("index kind ") + std::to_string(uint32_t(entry.id)) + " '" +
                                                entry.name + "' is already registered");
  }
  Registered& r = registered();
  const std::lock_guard<std::mutex> lock(r.mutex);
  r.kinds.push_back(&entry);
}

void check_knobs(const IndexKindEntry& entry, const KindOptions& options) {
  for (const auto& [name, value] : options.knobs) {
    bool known = false;
    for (const char* const* k = entry.knobs; *k != nullptr && !known; ++k) known = name == *k;
    if (!known) {
      std::string list;
      for (const char* const* k = entry.knobs; *k != nullptr; ++k) list += std::string(list.empty() ? "" : ", ") + *k;
      throw Error(ErrorCode::InvalidArgument, "the " + std::string(entry.name) + " index has no option '" + name +
                                                  "' (" + (list.empty() ? "it takes none" : "it takes " + list) + ")");
    }
  }
}

namespace {

const std::string* knob(const KindOptions& options, const char* name) {
  const auto it = options.knobs.find(name);
  return it == options.knobs.end() ? nullptr : &it->second;
}

[[noreturn]] void bad_knob(const char* name, const std::string& value, const char* expected) {
  throw Error(ErrorCode::InvalidArgument, std::string("option ") + name + ": '" + value + "' is not " + expected);
}

}  // namespace

uint64_t knob_uint(const KindOptions& options, const char* name, uint64_t fallback) {
  const std::string* v = knob(options, name);
  if (v == nullptr) return fallback;
  if (v->empty() || v->find_first_not_of("0123456789") != std::string::npos) bad_knob(name, *v, "a whole number");
  errno = 0;
  const unsigned long long n = std::strtoull(v->c_str(), nullptr, 10);
  if (errno == ERANGE) bad_knob(name, *v, "a whole number below 2^64");
  return n;
}

bool knob_bool(const KindOptions& options, const char* name, bool fallback) {
  const std::string* v = knob(options, name);
  if (v == nullptr) return fallback;
  if (*v == "true" || *v == "1") return true;
  if (*v == "false" || *v == "0") return false;
  bad_knob(name, *v, "true or false");
}

std::string knob_text(const KindOptions& options, const char* name, const std::string& fallback) {
  const std::string* v = knob(options, name);
  return v == nullptr ? fallback : *v;
}

// ---- the public names and numbers (quiver/index_file.hpp) ----

const char* index_kind_name(IndexKind kind) noexcept {
  const IndexKindEntry* e = find_index_kind(kind);
  return e == nullptr ? "unknown" : e->name;
}

IndexKind parse_index_kind(const std::string& name) {
  if (const IndexKindEntry* e = find_index_kind(name)) return e->id;
  std::string names;
  const auto kinds = index_kinds();
  for (size_t i = 0; i < kinds.size(); ++i) {
    names += (i == 0 ? "" : i + 1 == kinds.size() ? " or " : ", ") + std::string(kinds[i]->name);
  }
  throw Error(ErrorCode::InvalidArgument, "unknown index kind '" + name + "' (expected " + names + ")");
}

bool is_known_index_kind(uint32_t id) noexcept { return id != 0 && find_index_kind(IndexKind(id)) != nullptr; }

std::string known_index_kinds() {
  std::string out;
  for (const IndexKindEntry* e : index_kinds()) {
    out += (out.empty() ? "" : ", ") + std::to_string(uint32_t(e->id)) + " " + e->name;
  }
  return out;
}

}  // namespace quiver
