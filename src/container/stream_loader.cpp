// The stream loader (stream_loader.hpp). Faults are ranked by where the whole-file Reader and
// the kind's loader meet them (format.cpp's check order), so that the stream, which meets them
// in file order, still reports the one the bytes loader would:
//   steps 1-6   the head                 thrown at once (nothing later can outrank them)
//   step 7      declared size vs length  at finish (at once with exact_size)
//   step 8      header fields            rank (8)
//   step 9      section table            rank (9, entry, 0); padding before entry i: (9, i, 1)
//   step 10     section CRCs             rank (10, section)
//   then        the kind's head checks   rank (11); its contents: rank (12)
#include "container/stream_loader.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

#include "container/crc32c.hpp"
#include "index/flat/flat_format.hpp"
#include "index/hnsw/hnsw_format.hpp"
#include "index/quantized/quantized_format.hpp"

namespace quiver::io {
namespace {

constexpr uint64_t rank(uint64_t step, uint64_t index = 0, uint64_t sub = 0) {
  return step << 32 | index << 1 | sub;
}

// Where the gathering block of an unknown length starts; it doubles up to the declared size.
constexpr size_t kGatherStart = size_t(1) << 20;

Error out_of_memory(const char* what) { return Error(ErrorCode::OutOfMemory, std::string("out of memory ") + what); }

}  // namespace

struct StreamLoader::Region {
  uint64_t begin;
  uint64_t end;
  bool payload;     // else the zero padding before section `section`
  uint32_t section;  // index in head_.sections
};

StreamLoader::StreamLoader(StreamOptions options) : options_(std::move(options)) {}
StreamLoader::~StreamLoader() = default;

size_t StreamLoader::buffer_bytes() const noexcept { return head_bytes_.capacity() + whole_.capacity(); }

void StreamLoader::note(uint64_t r, const Error& error) {
  if (!fault_ || r < fault_rank_) {
    fault_ = error;
    fault_rank_ = r;
  }
  drop_work();
}

void StreamLoader::drop_work() noexcept {
  flat_.reset();
  hnsw_.reset();
  quantized_.reset();
  std::vector<uint8_t>().swap(whole_);
  gathering_ = false;
}

void StreamLoader::push(const uint8_t* data, size_t n) {
  if (final_) throw *fault_;
  if (n > 0 && data == nullptr) throw Error(ErrorCode::InvalidArgument, "stream bytes are null");
  uint64_t pos = seen_;
  seen_ += n;
  while (!head_done_ && n > 0) {
    // Take only what the head needs next, so a large first chunk is not copied whole.
    const size_t have = head_bytes_.size();
    const uint64_t need = have < kPreambleBytes ? kPreambleBytes
                          : have < head_.header_end ? head_.header_end
                                                    : head_.head_bytes();
    const size_t take = size_t(std::min<uint64_t>(n, need - have));
    head_bytes_.insert(head_bytes_.end(), data, data + take);
    data += take;
    n -= take;
    pos += take;
    try {
      head_done_ = read_head(head_bytes_.data(), head_bytes_.size(), /*ended=*/false, options_.read, head_);
    } catch (const Error& e) {
      note(0, e);
      final_ = true;
      throw;
    }
    if (head_done_) {
      on_head();
      if (final_) throw *fault_;
      gather(head_bytes_.data(), head_bytes_.size(), 0);
      consume(nullptr, 0, pos);  // regions of zero length right after the head
    }
  }
  if (!head_done_ || n == 0) return;
  gather(data, n, pos);
  consume(data, n, pos);
}

void StreamLoader::on_head() {
  if (options_.exact_size) {
    try {
      check_file_size(head_, *options_.exact_size);
    } catch (const Error& e) {
      note(rank(7), e);
      final_ = true;  // nothing after the head outranks step 7
      return;
    }
  }
  try {
    check_header_fields(head_);
  } catch (const Error& e) {
    note(rank(8), e);  // the table is not read: only step 7 can outrank this
    return;
  }
  try {
    check_table(head_bytes_.data(), head_, [](void*, uint64_t, uint64_t) {}, nullptr);
  } catch (const Error& e) {
    // Entries 0 .. j - 1 passed; the padding before them can still outrank this.
    note(rank(9, head_.sections.size()), e);
  }
  uint64_t at = head_.head_bytes();
  for (uint32_t i = 0; i < head_.sections.size(); ++i) {
    const SectionEntry& s = head_.sections[i];
    regions_.push_back({at, s.offset, false, i});
    regions_.push_back({s.offset, s.offset + s.size, true, i});
    at = s.offset + s.size;
  }
  if (fault_) return;
  try {
    if (options_.expected_kind) expect_kind(head_.header, *options_.expected_kind);
    if (head_.header.kind == IndexKind::flat) {
      // With the length known for sure the head's sizes are real: allocate once. Otherwise
      // the rows are allocated chunk by chunk as they arrive.
      flat_ = std::make_unique<FlatDecoder>(head_, options_.isa, options_.exact_size.has_value());
    } else if (head_.header.kind == IndexKind::hnsw) {
      hnsw_ = std::make_unique<HnswDecoder>(head_, options_.isa);  // grows with the rows that arrive
    } else {
      // The length as the caller knows it (or expects it: Content-Length) agrees with the head:
      // its sizes can be allocated at once, instead of growing by copies as the bytes arrive.
      const bool known = (options_.exact_size && *options_.exact_size == head_.file_bytes) ||
                         (options_.size_hint && *options_.size_hint == head_.file_bytes);
      if ((quantized_ = QuantizedDecoder::open(head_, options_.isa, known)) != nullptr) return;
      gathering_ = true;
      if (head_.file_bytes > SIZE_MAX) throw out_of_memory("gathering the index file");
      whole_.reserve(known ? size_t(head_.file_bytes) : size_t(std::min<uint64_t>(head_.file_bytes, kGatherStart)));
    }
  } catch (const std::bad_alloc&) {
    note(rank(11), out_of_memory("gathering the index file"));
  } catch (const Error& e) {
    note(rank(11), e);
  }
}

void StreamLoader::gather(const uint8_t* data, size_t n, uint64_t pos) {
  if (!gathering_ || pos >= head_.file_bytes) return;
  const size_t take = size_t(std::min<uint64_t>(n, head_.file_bytes - pos));
  try {
    if (whole_.size() + take > whole_.capacity()) {
      const uint64_t grown = std::max<uint64_t>(whole_.size() + take, uint64_t(whole_.capacity()) * 2);
      whole_.reserve(size_t(std::min<uint64_t>(grown, head_.file_bytes)));
    }
    whole_.insert(whole_.end(), data, data + take);
  } catch (const std::bad_alloc&) {
    note(rank(11), out_of_memory("gathering the index file"));
  }
}

void StreamLoader::consume(const uint8_t* data, size_t n, uint64_t pos) {
  for (;;) {
    // Close every region that ends here (zero-length ones included).
    while (region_ < regions_.size() && regions_[region_].end <= pos) {
      const Region& r = regions_[region_];
      if (r.payload && options_.read.verify_checksums) {
        try {
          check_section_crc(head_.sections[r.section], crc_);
        } catch (const Error& e) {
          note(rank(10, r.section), e);
        }
      }
      crc_ = 0;
      ++region_;
    }
    if (n == 0 || region_ >= regions_.size()) return;  // past the last section: only counted
    const Region& r = regions_[region_];
    const size_t take = size_t(std::min<uint64_t>(n, r.end - pos));
    if (!r.payload) {
      for (size_t i = 0; i < take; ++i) {
        if (data[i] != 0) {
          try {
            throw_padding_error(pos + i);
          } catch (const Error& e) {
            note(rank(9, r.section, 1), e);
          }
          break;
        }
      }
    } else {
      crc_ = crc32c_update(crc_, data, take);
      try {
        if (flat_) flat_->feed(head_.sections[r.section].tag, data, take);
        if (hnsw_) hnsw_->feed(head_.sections[r.section].tag, data, take);
        if (quantized_) quantized_->feed(head_.sections[r.section].tag, data, take);
      } catch (const Error& e) {
        note(rank(12), e);
      }
    }
    data += take;
    n -= take;
    pos += take;
  }
}

IndexKind StreamLoader::finish() {
  if (final_) throw *fault_;
  if (!head_done_) {
    // The stream ended inside the head: the Reader's own message for that many bytes.
    read_head(head_bytes_.data(), head_bytes_.size(), /*ended=*/true, options_.read, head_);
    throw Error(ErrorCode::Internal, "stream loader: the head was complete but not taken");
  }
  check_file_size(head_, seen_);
  if (fault_) throw *fault_;
  if (region_ != regions_.size()) throw Error(ErrorCode::Internal, "stream loader: a section was not closed");
  const IndexKind kind = head_.header.kind;
  try {
    if (flat_) {
      flat_index_.emplace(flat_->finish());
    } else if (hnsw_) {
      hnsw_index_.emplace(hnsw_->finish());
    } else if (quantized_) {
      quantized_index_.emplace(quantized_->finish());
    } else {
      const Reader reader(whole_.data(), whole_.size(), options_.read);
      if (kind == IndexKind::quantized) quantized_index_.emplace(load_quantized(reader, options_.isa));
    }
  } catch (const std::bad_alloc&) {
    drop_work();
    throw out_of_memory("loading the index");
  } catch (...) {
    drop_work();
    throw;
  }
  drop_work();
  ready_ = kind;
  return kind;
}

namespace {
[[noreturn]] void not_ready(const char* kind) {
  throw Error(ErrorCode::InvalidArgument, std::string("the stream did not load a ") + kind + " index");
}
}  // namespace

FlatIndex StreamLoader::take_flat() {
  if (!flat_index_) not_ready("flat");
  FlatIndex index = std::move(*flat_index_);
  flat_index_.reset();
  return index;
}

QuantizedIndex StreamLoader::take_quantized() {
  if (!quantized_index_) not_ready("quantized");
  QuantizedIndex index = std::move(*quantized_index_);
  quantized_index_.reset();
  return index;
}

HnswIndex StreamLoader::take_hnsw() {
  if (!hnsw_index_) not_ready("hnsw");
  HnswIndex index = std::move(*hnsw_index_);
  hnsw_index_.reset();
  return index;
}

}  // namespace quiver::io
