// The members every index kind's public class defines the same way over its pimpl, written
// once so that the kinds cannot drift apart:
//   QUIVER_INDEX_SHELL(Index, Options) — in the kind's index .cpp, after its Impl: construction
//     at the active ISA or a given one, the move-only special members, dim/metric/isa, size and
//     contains under the read lock, and the std::vector overloads of add and remove. Impl has
//     dim, metric, kernels.isa, rw (core::RwLock), slots (index::SlotTable) and live().
//   QUIVER_INDEX_LOAD_OVERLOADS(Index, load_file_of) — in the kind's format .cpp: load from bytes
//     at a given ISA (the kind's whole-file loader, load_file_of(io::Reader, Isa)), at the active
//     ISA, from a byte vector, and from a file (memory-mapped).
// Macros rather than a base class: the public headers keep one plain class per kind (no
// template base in the API), and each definition is still compiled in the kind's own file.
#pragma once

#define QUIVER_INDEX_SHELL(Index, Options)                                                       \
  Index::Index(const Options& options) : Index(options, active_isa()) {}                         \
  Index::Index(const Options& options, Isa isa) : impl_(std::make_unique<Impl>(options, isa)) {} \
  Index::~Index() = default;                                                                     \
  Index::Index(Index&&) noexcept = default;                                                      \
  Index& Index::operator=(Index&&) noexcept = default;                                           \
  size_t Index::dim() const noexcept { return impl_->dim; }                                      \
  Metric Index::metric() const noexcept { return impl_->metric; }                                \
  Isa Index::isa() const noexcept { return impl_->kernels.isa; }                                 \
  size_t Index::size() const noexcept {                                                          \
    core::ReadLock lock(impl_->rw);                                                              \
    return impl_->live();                                                                        \
  }                                                                                              \
  bool Index::contains(uint64_t id) const noexcept {                                             \
    core::ReadLock lock(impl_->rw);                                                              \
    return impl_->slots.contains(id);                                                            \
  }                                                                                              \
  void Index::add(const std::vector<uint64_t>& ids, const std::vector<float>& vectors) {         \
    core::check_batch_shape(ids.size(), vectors.size(), impl_->dim);                             \
    add(ids.data(), vectors.data(), ids.size());                                                 \
  }                                                                                              \
  void Index::remove(const std::vector<uint64_t>& ids) { remove(ids.data(), ids.size()); }       \
  static_assert(true, "a QUIVER_INDEX_SHELL line ends with a semicolon")

#define QUIVER_INDEX_LOAD_OVERLOADS(Index, load_file_of)                                                             \
  Index Index::load(const uint8_t* data, size_t size, Isa isa) { return load_file_of(io::Reader(data, size), isa); } \
  Index Index::load(const uint8_t* data, size_t size) { return load(data, size, active_isa()); }                     \
  Index Index::load(const std::vector<uint8_t>& bytes) { return load(bytes.data(), bytes.size()); }                  \
  Index Index::load_file(const std::string& path) {                                                                  \
    io::MappedFile file(path);                                                                                       \
    return load(file.data(), file.size());                                                                           \
  }                                                                                                                  \
  static_assert(true, "a QUIVER_INDEX_LOAD_OVERLOADS line ends with a semicolon")
