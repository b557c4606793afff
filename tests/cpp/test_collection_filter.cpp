// The collection's JSON reader, metadata rules and filter language, against a reference
// written here from the rules in quiver/collection.hpp.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "collection/columns.hpp"
#include "collection/filter.hpp"
#include "collection/json.hpp"
#include "collection/metadata.hpp"
#include "quiver/error.hpp"
#include "test_support.hpp"

namespace quiver::collection {
namespace test_collection_filter {

using test::code_of;

TEST(CollectionJson, ParsesTheGrammarAndNothingElse) {
  const Json v = parse_json(R"( {"a": [1, -2.5e3, true, false, null, "x\u00e9\ud83d\ude00\n"], "b": {}} )", "t");
  ASSERT_TRUE(v.is(Json::Type::object));
  ASSERT_EQ(v.fields.size(), 2u);
  const Json& a = *v.find("a");
  ASSERT_EQ(a.items.size(), 6u);
  EXPECT_EQ(a.items[1].number, -2500);
  EXPECT_EQ(a.items[5].text, "x\xc3\xa9\xf0\x9f\x98\x80\n");
  for (const char* bad : {"",
                          "{",
                          "[1,]",
                          "{\"a\":1,}",
                          "{'a':1}",
                          "01",
                          "1.",
                          "-",
                          "1e",
                          "NaN",
                          "Infinity",
                          "1e999",
                          "\"\\x\"",
                          "\"\\ud800\"",
                          "\"\\udc00x\"",
                          "tru",
                          "{\"a\":1}x",
                          "{\"a\":1,\"a\":2}",
                          "\"\x01\"",
                          "\"\xff\"",
                          "\"\xc0\xaf\"",
                          "\"\xed\xa0\x80\"",
                          "/*c*/1",
                          "[1 2]"}) {
    EXPECT_EQ(code_of([&] { parse_json(bad, "t"); }), ErrorCode::InvalidArgument) << bad;
  }
  std::string deep(kMaxJsonDepth, '['), close(kMaxJsonDepth, ']');
  EXPECT_NO_THROW(parse_json(deep + close, "t"));
  EXPECT_EQ(code_of([&] { parse_json("[" + deep + close + "]", "t"); }), ErrorCode::InvalidArgument);
}

TEST(CollectionJson, WritesWhatReadsBackTheSame) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1e6, 1e6);
  for (int i = 0; i < 2000; ++i) {
    double x = u(rng);
    if (i % 3 == 0) x = std::ldexp(x, int(rng() % 600) - 300);
    std::string text;
    write_json_number(x, text);
    EXPECT_EQ(parse_json(text, "t").number, x) << text;
  }
  const Json v = parse_json(R"({"s":"a\"b\\c\u0001\t","n":[1,0.5,-3],"t":true})", "t");
  std::string out;
  write_json(v, out);
  EXPECT_EQ(out, R"({"s":"a\"b\\c\u0001\t","n":[1,0.5,-3],"t":true})");
}

TEST(CollectionMetadata, AcceptsTheDocumentedShapesOnly) {
  std::string canonical;
  const Json ok =
      check_metadata(R"({ "lang": "en", "year": 2024, "draft": false, "tags": ["a", "b"] })", "r", canonical);
  EXPECT_EQ(canonical, R"({"lang":"en","year":2024,"draft":false,"tags":["a","b"]})");
  check_metadata("", "r", canonical);
  EXPECT_EQ(canonical, "");
  check_metadata("{}", "r", canonical);
  EXPECT_EQ(canonical, "");
  for (const char* bad : {"[]", "1", R"({"a":null})", R"({"a":{"b":1}})", R"({"a":[1]})", R"({"$a":1})", R"({"":1})"}) {
    EXPECT_EQ(code_of([&] { check_metadata(bad, "r", canonical); }), ErrorCode::InvalidArgument) << bad;
  }
  std::string many = "{";
  for (size_t i = 0; i <= kMaxMetadataFields; ++i) many += (i ? ",\"f" : "\"f") + std::to_string(i) + "\":1";
  EXPECT_EQ(code_of([&] { check_metadata(many + "}", "r", canonical); }), ErrorCode::InvalidArgument);
  const std::string big = R"({"a":")" + std::string(kMaxMetadataBytes, 'x') + "\"}";
  EXPECT_EQ(code_of([&] { check_metadata(big, "r", canonical); }), ErrorCode::InvalidArgument);
  const std::string fits = R"({"a":")" + std::string(kMaxMetadataBytes - 8, 'x') + "\"}";
  EXPECT_NO_THROW(check_metadata(fits, "r", canonical));
}

TEST(CollectionMetadata, IdsHaveLimitsAndTwoKinds) {
  EXPECT_NO_THROW(check_record_id(RecordId(kMaxIntegerRecordId)));
  EXPECT_EQ(code_of([] { check_record_id(RecordId(kMaxIntegerRecordId + 1)); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([] { check_record_id(RecordId(std::string())); }), ErrorCode::InvalidArgument);
  EXPECT_NO_THROW(check_record_id(RecordId(std::string(kMaxRecordIdBytes, 'a'))));
  EXPECT_EQ(code_of([] { check_record_id(RecordId(std::string(kMaxRecordIdBytes + 1, 'a'))); }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([] { check_record_id(RecordId(std::string("a\xff"))); }), ErrorCode::InvalidArgument);
  EXPECT_NE(id_key(RecordId(uint64_t(7))), id_key(RecordId(std::string("7"))));
  for (const RecordId& id : {RecordId(uint64_t(0)), RecordId(kMaxIntegerRecordId), RecordId(std::string("doc-1"))})
    EXPECT_EQ(id_from_key(id_key(id)), id);
}

// ---- filters against a reference ----

struct Row {
  std::string lang;  // "" = missing
  double year = NAN;
  int draft = -1;  // -1 missing, 0, 1
  std::vector<std::string> tags;
  std::string ns;
};

std::string json_of(const Row& r) {
  std::string s = "{";
  auto sep = [&] {
    if (s.size() > 1) s += ',';
  };
  if (!r.lang.empty()) sep(), s += "\"lang\":\"" + r.lang + "\"";
  if (!std::isnan(r.year)) sep(), s += "\"year\":" + std::to_string(int(r.year));
  if (r.draft >= 0) sep(), s += std::string("\"draft\":") + (r.draft ? "true" : "false");
  if (!r.tags.empty()) {
    sep(), s += "\"tags\":[";
    for (size_t i = 0; i < r.tags.size(); ++i) s += (i ? ",\"" : "\"") + r.tags[i] + "\"";
    s += "]";
  }
  sep(), s += "\"note\":\"undeclared\"";
  return s + "}";
}

std::vector<FieldSpec> fields() {
  return {{"lang", FieldType::string},
          {"year", FieldType::number},
          {"draft", FieldType::boolean},
          {"tags", FieldType::tags}};
}

using Ref = std::function<bool(const Row&)>;
struct Case {
  std::string json;
  Ref ref;
};

const char* const kLangs[] = {"de", "en", "es", "fr", "zz"};  // zz is in no row
const char* const kTags[] = {"a", "b", "c", "d", "q"};        // q is in no row

Case random_leaf(std::mt19937_64& rng) {
  const std::string lang = kLangs[rng() % 5];
  const double year = double(2000 + rng() % 26);
  const std::string tag = kTags[rng() % 5], tag2 = kTags[rng() % 5];
  const bool b = rng() % 2;
  const auto has = [](const Row& r, const std::string& t) {
    for (const auto& x : r.tags)
      if (x == t) return true;
    return false;
  };
  switch (rng() % 16) {
    case 0: return {"{\"lang\":\"" + lang + "\"}", [=](const Row& r) { return r.lang == lang; }};
    case 1: return {"{\"lang\":{\"$ne\":\"" + lang + "\"}}", [=](const Row& r) { return r.lang != lang; }};
    case 2:
      return {"{\"lang\":{\"$in\":[\"" + lang + "\",\"fr\"]}}",
              [=](const Row& r) { return !r.lang.empty() && (r.lang == lang || r.lang == "fr"); }};
    case 3: return {"{\"lang\":{\"$nin\":[\"" + lang + "\"]}}", [=](const Row& r) { return r.lang != lang; }};
    case 4:
      return {"{\"lang\":{\"$lt\":\"" + lang + "\"}}", [=](const Row& r) { return !r.lang.empty() && r.lang < lang; }};
    case 5:
      return {"{\"lang\":{\"$gte\":\"" + lang + "\"}}",
              [=](const Row& r) { return !r.lang.empty() && r.lang >= lang; }};
    case 6: return {"{\"year\":" + std::to_string(int(year)) + "}", [=](const Row& r) { return r.year == year; }};
    case 7:
      return {"{\"year\":{\"$gt\":" + std::to_string(int(year)) + ",\"$lte\":2020}}",
              [=](const Row& r) { return r.year > year && r.year <= 2020; }};
    case 8:
      return {"{\"year\":{\"$ne\":" + std::to_string(int(year)) + "}}",
              [=](const Row& r) { return !(r.year == year); }};
    case 9:
      return {"{\"year\":{\"$nin\":[2001,2002," + std::to_string(int(year)) + "]}}",
              [=](const Row& r) { return !(r.year == 2001 || r.year == 2002 || r.year == year); }};
    case 10:
      return {std::string("{\"draft\":") + (b ? "true" : "false") + "}",
              [=](const Row& r) { return r.draft == int(b); }};
    case 11:
      return {std::string("{\"draft\":{\"$ne\":") + (b ? "true" : "false") + "}}",
              [=](const Row& r) { return r.draft != int(b); }};
    case 12: return {"{\"tags\":\"" + tag + "\"}", [=](const Row& r) { return has(r, tag); }};
    case 13:
      return {"{\"tags\":{\"$in\":[\"" + tag + "\",\"" + tag2 + "\"]}}",
              [=](const Row& r) { return has(r, tag) || has(r, tag2); }};
    case 14: return {"{\"tags\":{\"$nin\":[\"" + tag + "\"]}}", [=](const Row& r) { return !has(r, tag); }};
    default: return {"{\"year\":{\"$in\":[]}}", [](const Row&) { return false; }};
  }
}

Case random_filter(std::mt19937_64& rng, int depth) {
  if (depth == 0 || rng() % 3 == 0) return random_leaf(rng);
  const int n = 1 + int(rng() % 3);
  std::vector<Case> parts;
  for (int i = 0; i < n; ++i) parts.push_back(random_filter(rng, depth - 1));
  const int shape = int(rng() % 4);
  if (shape == 0) {
    return {"{\"$not\":" + parts[0].json + "}", [p = parts[0].ref](const Row& r) { return !p(r); }};
  }
  std::string list;
  for (size_t i = 0; i < parts.size(); ++i) list += (i ? "," : "") + parts[i].json;
  if (shape == 1 || shape == 3) {
    return {"{\"$and\":[" + list + "]}", [parts](const Row& r) {
              for (const auto& p : parts)
                if (!p.ref(r)) return false;
              return true;
            }};
  }
  return {"{\"$or\":[" + list + "]}", [parts](const Row& r) {
            for (const auto& p : parts)
              if (p.ref(r)) return true;
            return false;
          }};
}

TEST(CollectionFilter, EvaluatesLikeTheReferenceOnRandomRowsAndFilters) {
  std::mt19937_64 rng(11);
  Columns columns(fields());
  std::vector<Row> rows(700);
  std::vector<StagedValues> staged;
  for (Row& r : rows) {
    if (rng() % 5) r.lang = kLangs[rng() % 4];
    if (rng() % 4) r.year = double(2000 + rng() % 25);
    if (rng() % 3) r.draft = int(rng() % 2);
    for (int t = 0; t < 4; ++t)
      if (rng() % 3 == 0) r.tags.push_back(kTags[t]);
    std::string canonical;
    staged.push_back(columns.stage(check_metadata(json_of(r), "r", canonical), r.ns, "r"));
  }
  columns.reserve(rows.size(), staged);
  for (size_t i = 0; i < rows.size(); ++i) columns.set(uint32_t(i), staged[i]);
  // Clear and set some rows again (dictionary codes freed and reused).
  for (size_t i = 0; i < rows.size(); i += 7) columns.clear(uint32_t(i));
  for (size_t i = 0; i < rows.size(); i += 7) columns.set(uint32_t(i), staged[i]);

  size_t nonempty = 0;
  for (int t = 0; t < 400; ++t) {
    const Case c = random_filter(rng, 3);
    const Filter f = Filter::compile(c.json, columns);
    const RowSet set = f.evaluate(columns);
    ASSERT_EQ(set.rows, rows.size());
    size_t expected = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      const bool want = c.ref(rows[i]);
      expected += want;
      ASSERT_EQ(set.test(i), want) << c.json << " row " << i << " " << json_of(rows[i]);
      ASSERT_EQ(f.matches(columns, uint32_t(i)), want) << c.json << " row " << i;
    }
    EXPECT_EQ(set.count(), expected);
    nonempty += expected > 0 && expected < rows.size();
  }
  EXPECT_GT(nonempty, 200u);  // the filters are not all trivial
}

TEST(CollectionFilter, RejectsWhatItDoesNotUnderstand) {
  Columns columns(fields());
  for (const char* bad : {"[]",
                          "1",
                          "null",
                          R"({"title":"x"})",  // undeclared
                          R"({"note":"x"})",   // in records, but not declared
                          R"({"lang":{"$regex":"e"}})",
                          R"({"lang":{"eq":"e"}})",
                          R"({"$nor":[{"lang":"en"}]})",
                          R"({"lang":1})",
                          R"({"lang":{"$in":"en"}})",
                          R"({"lang":{"$in":[1]}})",
                          R"({"year":"2020"})",
                          R"({"year":{"$gt":true}})",
                          R"({"draft":{"$lt":true}})",
                          R"({"draft":1})",
                          R"({"lang":{"$contains":"e"}})",
                          R"({"tags":{"$eq":"a"}})",
                          R"({"tags":{"$gt":"a"}})",
                          R"({"tags":1})",
                          R"({"$and":[]})",
                          R"({"$and":{}})",
                          R"({"$or":[1]})",
                          R"({"$not":[]})",
                          R"({"lang":{}})",
                          R"({"lang":{"$eq":null}})",
                          R"({"lang":"en",})"}) {
    EXPECT_EQ(code_of([&] { Filter::compile(bad, columns); }), ErrorCode::InvalidArgument) << bad;
  }
  EXPECT_NO_THROW(Filter::compile("{}", columns));
  EXPECT_NO_THROW(Filter::compile(R"({"$not":{}})", columns));
}

TEST(CollectionColumns, DeclarationsAreChecked) {
  EXPECT_EQ(code_of([] {
              Columns c({{"a", FieldType::string}, {"a", FieldType::number}});
            }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([] { Columns c({{"$a", FieldType::string}}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([] { Columns c({{"", FieldType::string}}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([] { Columns c({{"a", FieldType(9)}}); }), ErrorCode::InvalidArgument);
  std::vector<FieldSpec> many;
  for (size_t i = 0; i <= kMaxDeclaredFields; ++i) many.push_back({"f" + std::to_string(i), FieldType::number});
  EXPECT_EQ(code_of([&] { Columns c(many); }), ErrorCode::InvalidArgument);
  // A record whose declared field holds the wrong type.
  Columns c(fields());
  std::string canonical;
  EXPECT_EQ(code_of([&] { c.stage(check_metadata(R"({"year":"2020"})", "r", canonical), "", "r"); }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([&] { c.stage(check_metadata(R"({"tags":true})", "r", canonical), "", "r"); }),
            ErrorCode::InvalidArgument);
}

}  // namespace test_collection_filter
}  // namespace quiver::collection
