// The index kind registry (src/index/common/kind_registry.hpp): the built-in kinds and a toy
// kind (tests/cpp/toy_kind/, registered by one line) are created, searched, saved, loaded,
// streamed and inspected through the generic parts of quiver alone, and every bad entry,
// knob or kind number is refused with its own code.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "index/common/kind_registry.hpp"
#include "index/common/stream_loader.hpp"
#include "quiver/quiver.hpp"
#include "toy_kind/toy_index.hpp"

namespace quiver::test {
namespace test_kind_registry {

std::vector<std::string> kind_names() {
  std::vector<std::string> names;
  for (const IndexKindEntry* e : index_kinds()) names.push_back(e->name);
  return names;
}

ErrorCode code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return ErrorCode::Internal;
}

std::unique_ptr<AnyIndex> toy_with_rows(const std::string& label) {
  KindOptions o;
  o.dim = 3;
  o.knobs["label"] = label;
  std::unique_ptr<AnyIndex> index = index_kind(toy::kToyKind).create(o);
  const std::vector<uint64_t> ids = {7, 3, 11};
  const std::vector<float> rows = {0, 0, 0, 1, 1, 1, 5, 5, 5};
  index->add(ids, rows);
  return index;
}

TEST(KindRegistry, ListsTheBuiltInKindsInOrderThenTheRegisteredOnes) {
  EXPECT_EQ(kind_names(), (std::vector<std::string>{"flat", "quantized", "hnsw", "toy"}));
  EXPECT_EQ(parse_index_kind("toy"), toy::kToyKind);
  EXPECT_STREQ(index_kind_name(toy::kToyKind), "toy");
  EXPECT_STREQ(index_kind_name(IndexKind::hnsw), "hnsw");
  EXPECT_STREQ(index_kind_name(IndexKind(201)), "unknown");
  EXPECT_TRUE(is_known_index_kind(200));
  EXPECT_FALSE(is_known_index_kind(0));
  EXPECT_FALSE(is_known_index_kind(201));
  EXPECT_EQ(known_index_kinds(), "1 flat, 2 quantized, 3 hnsw, 200 toy");
  EXPECT_EQ(find_index_kind(std::string("nope")), nullptr);
  EXPECT_EQ(code_of([] { parse_index_kind("nope"); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([] { index_kind(IndexKind(201)); }), ErrorCode::UnknownIndexKind);
}

TEST(KindRegistry, AToyKindIsCreatedSearchedSavedLoadedStreamedAndInspected) {
  std::unique_ptr<AnyIndex> index = toy_with_rows("first");
  EXPECT_EQ(index->kind(), toy::kToyKind);
  EXPECT_EQ(index->describe(), "toy, label first");
  const std::vector<Neighbor> hits = index->search(std::vector<float>{1, 1, 1.2f}, 2);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].id, 3u);
  EXPECT_EQ(hits[1].id, 7u);

  const std::vector<uint8_t> bytes = index->serialize();
  const IndexFileInfo info = inspect_index(bytes.data(), bytes.size());
  EXPECT_EQ(info.kind, toy::kToyKind);
  EXPECT_EQ(info.count, 3u);

  const std::unique_ptr<AnyIndex> loaded = load_any_index(bytes.data(), bytes.size());
  EXPECT_EQ(loaded->kind(), toy::kToyKind);
  EXPECT_EQ(loaded->describe(), "toy, label first");
  EXPECT_EQ(loaded->serialize(), bytes);

  io::StreamLoader stream({});
  for (size_t at = 0; at < bytes.size(); at += 7)
    stream.push(bytes.data() + at, std::min<size_t>(7, bytes.size() - at));
  EXPECT_EQ(stream.finish(), toy::kToyKind);
  const std::unique_ptr<AnyIndex> streamed = stream.take();
  EXPECT_EQ(streamed->serialize(), bytes);
  EXPECT_EQ(streamed->search(std::vector<float>{5, 5, 4}, 1)[0].id, 11u);
}

TEST(KindRegistry, TakingAnotherKindFromTheStreamIsRefused) {
  const std::vector<uint8_t> bytes = toy_with_rows("x")->serialize();
  io::StreamLoader stream({});
  stream.push(bytes.data(), bytes.size());
  stream.finish();
  EXPECT_EQ(code_of([&] { stream.take_flat(); }), ErrorCode::InvalidArgument);
}

TEST(KindRegistry, AFileOfAKindNoOneRegisteredNamesTheKindsThereAre) {
  std::vector<uint8_t> bytes = toy_with_rows("x")->serialize();
  // Kind number 201 at header offset 16, with the head's CRC made right again by a re-write:
  // build the same file under an unregistered number through the container itself.
  io::Header h;
  h.kind = IndexKind(201);
  h.dim = 3;
  io::Writer w(h);
  w.add_section(io::fourcc("TOYV")).u32(0);
  bytes = w.to_bytes();
  try {
    load_any_index(bytes.data(), bytes.size());
    FAIL() << "a kind no one registered loaded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::UnknownIndexKind);
    EXPECT_NE(
        std::string(e.what()).find("unknown index kind 201 (this reader knows 1 flat, 2 quantized, 3 hnsw, 200 toy)"),
        std::string::npos)
        << e.what();
  }
}

TEST(KindRegistry, KnobsAreCheckedByTheKindThatTakesThem) {
  KindOptions o;
  o.dim = 4;
  o.knobs["label"] = "x";
  EXPECT_EQ(code_of([&] { index_kind(IndexKind::flat).create(o); }), ErrorCode::InvalidArgument);  // flat takes none
  o.knobs = {{"bits", "four"}};
  EXPECT_EQ(code_of([&] { index_kind(IndexKind::quantized).create(o); }), ErrorCode::InvalidArgument);
  o.knobs = {{"bits", "3"}};
  EXPECT_EQ(code_of([&] { index_kind(IndexKind::quantized).create(o); }), ErrorCode::InvalidArgument);
  o.knobs = {{"storage", "f16"}};
  EXPECT_EQ(code_of([&] { index_kind(IndexKind::hnsw).create(o); }), ErrorCode::InvalidArgument);
  o.knobs = {{"keep_vectors", "yes"}};
  EXPECT_EQ(code_of([&] { index_kind(IndexKind::hnsw).create(o); }), ErrorCode::InvalidArgument);

  o.knobs = {{"bits", "2"}, {"lists", "auto"}, {"refine_bits", "3"}, {"keep_vectors", "false"}, {"seed", "9"}};
  const std::unique_ptr<AnyIndex> q = index_kind(IndexKind::quantized).create(o);
  EXPECT_EQ(
      q->describe(),
      "2 bits, seed 9, codes only (no rerank), refine plane 3 bits, 1 lists (auto), adaptive probes (filtered: 1)");
  o.knobs = {{"M", "8"}, {"storage", "sq8"}, {"ef_search", "33"}};
  const std::unique_ptr<AnyIndex> h = index_kind(IndexKind::hnsw).create(o);
  EXPECT_NE(h->describe().find("M 8, efConstruction 200, efSearch 33"), std::string::npos) << h->describe();
  EXPECT_NE(h->describe().find("storage sq8"), std::string::npos) << h->describe();
}

TEST(KindRegistry, ATakenNumberOrNameOrAnIncompleteEntryIsRefused) {
  const IndexKindEntry& toy = index_kind(toy::kToyKind);
  static const IndexKindEntry same_number = {toy::kToyKind, "toy2", toy.knobs, toy.load, toy.open, toy.create};
  static const IndexKindEntry same_name = {IndexKind(202), "flat", toy.knobs, toy.load, toy.open, toy.create};
  static const IndexKindEntry no_loader = {IndexKind(203), "toy3", toy.knobs, nullptr, toy.open, toy.create};
  EXPECT_EQ(code_of([] { register_index_kind(same_number); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([] { register_index_kind(same_name); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([] { register_index_kind(no_loader); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(kind_names().size(), 4u);
}

}  // namespace test_kind_registry
}  // namespace quiver::test
