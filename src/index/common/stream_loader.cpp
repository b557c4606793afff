// The stream loader (stream_loader.hpp). Faults are ranked by where the whole-file Reader and
// the kind's loader meet them (format.cpp's check order), so that the stream, which meets them
// in file order, still reports the one the bytes loader would:
//   steps 1-6   the head                 thrown at once (nothing later can outrank them)
//   step 7      declared size vs length  at finish (at once with exact_size)
//   step 8      header fields            rank (8)
//   step 9      section table            rank (9, entry, 0); padding before entry i: (9, i, 1)
//   step 10     section CRCs             rank (10, section)
//   then        the kind's head checks   rank (11); its contents: rank (12)
#include "index/common/stream_loader.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

#include "container/crc32c.hpp"

namespace quiver::io {
namespace {

constexpr uint64_t rank(uint64_t step, uint64_t index = 0, uint64_t sub = 0) { return step << 32 | index << 1 | sub; }

// Where the gathering block of an unknown length starts; it doubles up to the declared size.
constexpr size_t kGatherStart = size_t(1) << 20;

Error out_of_memory(const char* what) { return Error(ErrorCode::OutOfMemory, std::string("out of memory ") + what); }

}  // namespace

struct StreamLoader::Region {
  uint64_t begin;
  uint64_t end;
  bool payload;      // else the zero padding before section `section`
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
  decoder_.reset();
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
    const uint64_t need = have < kPreambleBytes     ? kPreambleBytes
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
    check_table(
        head_bytes_.data(), head_, [](void*, uint64_t, uint64_t) {}, nullptr);
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
    kind_ = &index_kind(head_.header.kind);  // the container accepted only kinds there are
    // The length as the caller knows it (or expects it: Content-Length) agrees with the head:
    // a decoder may allocate its sizes at once, instead of growing as the bytes arrive.
    StreamHints hints;
    hints.exact_size = options_.exact_size.has_value();
    hints.length_known = (options_.exact_size && *options_.exact_size == head_.file_bytes) ||
                         (options_.size_hint && *options_.size_hint == head_.file_bytes);
    if ((decoder_ = kind_->open(head_, options_.isa, hints)) != nullptr) return;
    gathering_ = true;
    if (head_.file_bytes > SIZE_MAX) throw out_of_memory("gathering the index file");
    whole_.reserve(hints.length_known ? size_t(head_.file_bytes)
                                      : size_t(std::min<uint64_t>(head_.file_bytes, kGatherStart)));
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
        if (decoder_) decoder_->feed(head_.sections[r.section].tag, data, take);
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
    if (decoder_) {
      index_ = decoder_->finish();
    } else {
      const Reader reader(whole_.data(), whole_.size(), options_.read);
      index_ = kind_->load(reader, options_.isa);
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

std::unique_ptr<AnyIndex> StreamLoader::take() {
  if (index_ == nullptr) throw Error(ErrorCode::InvalidArgument, "the stream has no index to take");
  return std::move(index_);
}

}  // namespace quiver::io
