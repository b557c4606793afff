// A strict JSON reader and writer for the collection's metadata records and filters (RFC 8259:
// no comments, no trailing commas, no NaN, no duplicate keys, UTF-8 only). Why our own: the
// core library has no dependencies, and what it accepts must be the same on every target and
// documented — a lenient parser would let a misspelt filter through as something else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace quiver::collection {

// Limits on what the reader accepts (Error(InvalidArgument) beyond them).
inline constexpr size_t kMaxJsonDepth = 32;
inline constexpr size_t kMaxJsonBytes = 1 << 20;

struct Json {
  enum class Type : uint8_t { null, boolean, number, string, array, object };
  Type type = Type::null;
  bool boolean = false;
  double number = 0;
  std::string text;                                  // string
  std::vector<Json> items;                           // array
  std::vector<std::pair<std::string, Json>> fields;  // object, in the order written

  bool is(Type t) const noexcept { return type == t; }
  // The field's value, or nullptr.
  const Json* find(std::string_view name) const noexcept;
};

// "null", "a boolean", ... for messages.
const char* json_type_name(Json::Type type) noexcept;

// Parses one JSON value (surrounding white space allowed). Throws Error(InvalidArgument)
// "<what>: <problem> at byte N".
Json parse_json(std::string_view text, const char* what);

// Valid UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
bool is_valid_utf8(std::string_view text) noexcept;

// Appends `value` as compact JSON (numbers with the shortest text that reads back the same).
void write_json(const Json& value, std::string& out);
void write_json_string(std::string_view text, std::string& out);
void write_json_number(double value, std::string& out);

}  // namespace quiver::collection
