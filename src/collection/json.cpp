// The strict JSON reader and writer (json.hpp).
#include "collection/json.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "quiver/error.hpp"

namespace quiver::collection {

const Json* Json::find(std::string_view name) const noexcept {
  for (const auto& [key, value] : fields)
    if (key == name) return &value;
  return nullptr;
}

const char* json_type_name(Json::Type type) noexcept {
  switch (type) {
    case Json::Type::null: return "null";
    case Json::Type::boolean: return "a boolean";
    case Json::Type::number: return "a number";
    case Json::Type::string: return "a string";
    case Json::Type::array: return "an array";
    case Json::Type::object: return "an object";
  }
  return "?";
}

namespace {

// Length of the UTF-8 sequence at s[i] (0 if it is not a valid one).
size_t utf8_sequence(std::string_view s, size_t i) noexcept {
  const auto byte = [&](size_t j) { return static_cast<unsigned char>(s[j]); };
  const unsigned c = byte(i);
  if (c < 0x80) return 1;
  size_t n;
  uint32_t cp;
  if ((c & 0xE0) == 0xC0) {
    n = 2, cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t j = 1; j < n; ++j) {
    if ((byte(i + j) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + j) & 0x3F);
  }
  static constexpr uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

void append_utf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

class Parser {
 public:
  Parser(std::string_view text, const char* what) : s_(text), what_(what) {}

  Json document() {
    if (s_.size() > kMaxJsonBytes)
      fail("is " + std::to_string(s_.size()) + " bytes; at most " + std::to_string(kMaxJsonBytes) + " are accepted");
    Json value = parse_value(0);
    skip_space();
    if (i_ != s_.size()) fail("unexpected text after the value");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw Error(ErrorCode::InvalidArgument,
                std::string(what_) + " is not valid JSON: " + problem + " at byte " + std::to_string(i_));
  }

  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }

  bool take(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }

  void expect_word(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) fail("unexpected character");
    i_ += word.size();
  }

  Json parse_value(size_t depth) {
    skip_space();
    if (i_ >= s_.size()) fail("unexpected end");
    Json v;
    const char c = s_[i_];
    if (c == '{' || c == '[') {
      if (depth >= kMaxJsonDepth) fail("nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
      return c == '{' ? parse_object(depth + 1) : parse_array(depth + 1);
    }
    if (c == '"') {
      v.type = Json::Type::string;
      v.text = parse_string();
    } else if (c == 't') {
      expect_word("true");
      v.type = Json::Type::boolean, v.boolean = true;
    } else if (c == 'f') {
      expect_word("false");
      v.type = Json::Type::boolean, v.boolean = false;
    } else if (c == 'n') {
      expect_word("null");
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      v.type = Json::Type::number;
      v.number = parse_number();
    } else {
      fail("unexpected character");
    }
    return v;
  }

  Json parse_object(size_t depth) {
    Json v;
    v.type = Json::Type::object;
    ++i_;  // '{'
    skip_space();
    if (take('}')) return v;
    for (;;) {
      skip_space();
      if (i_ >= s_.size() || s_[i_] != '"') fail("expected a field name in quotes");
      const size_t at = i_;
      std::string key = parse_string();
      if (v.find(key) != nullptr) {
        i_ = at;
        fail("the field \"" + key + "\" appears twice");
      }
      skip_space();
      if (!take(':')) fail("expected ':'");
      Json value = parse_value(depth);
      v.fields.emplace_back(std::move(key), std::move(value));
      skip_space();
      if (take('}')) return v;
      if (!take(',')) fail("expected ',' or '}'");
    }
  }

  Json parse_array(size_t depth) {
    Json v;
    v.type = Json::Type::array;
    ++i_;  // '['
    skip_space();
    if (take(']')) return v;
    for (;;) {
      v.items.push_back(parse_value(depth));
      skip_space();
      if (take(']')) return v;
      if (!take(',')) fail("expected ',' or ']'");
    }
  }

  uint32_t hex4() {
    if (i_ + 4 > s_.size()) fail("a \\u escape needs four hex digits");
    uint32_t cp = 0;
    for (int j = 0; j < 4; ++j) {
      const char h = s_[i_++];
      cp <<= 4;
      if (h >= '0' && h <= '9') {
        cp |= uint32_t(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        cp |= uint32_t(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        cp |= uint32_t(h - 'A' + 10);
      } else {
        --i_;
        fail("a \\u escape needs four hex digits");
      }
    }
    return cp;
  }

  std::string parse_string() {
    ++i_;  // '"'
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) fail("a string is not closed");
      const unsigned char c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        ++i_;
        return out;
      }
      if (c < 0x20) fail("a control character in a string must be escaped");
      if (c == '\\') {
        ++i_;
        if (i_ >= s_.size()) fail("a string is not closed");
        const char e = s_[i_++];
        switch (e) {
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          case '/': out += '/'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'n': out += '\n'; break;
          case 'r': out += '\r'; break;
          case 't': out += '\t'; break;
          case 'u': {
            uint32_t cp = hex4();
            if (cp >= 0xD800 && cp <= 0xDBFF) {
              if (!(take('\\') && take('u'))) fail("a lone UTF-16 surrogate");
              const uint32_t low = hex4();
              if (low < 0xDC00 || low > 0xDFFF) fail("a lone UTF-16 surrogate");
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
              fail("a lone UTF-16 surrogate");
            }
            append_utf8(cp, out);
            break;
          }
          default: --i_; fail("an unknown escape");
        }
        continue;
      }
      const size_t n = utf8_sequence(s_, i_);
      if (n == 0) fail("invalid UTF-8");
      out.append(s_.data() + i_, n);
      i_ += n;
    }
  }

  double parse_number() {
    const size_t start = i_;
    take('-');
    if (take('0')) {
    } else if (i_ < s_.size() && s_[i_] >= '1' && s_[i_] <= '9') {
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    } else {
      fail("a number needs digits");
    }
    if (take('.')) {
      const size_t digits = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
      if (i_ == digits) fail("a number needs digits after '.'");
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (!take('+')) take('-');
      const size_t digits = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
      if (i_ == digits) fail("a number needs digits in its exponent");
    }
    const std::string token(s_.substr(start, i_ - start));
    const double value = std::strtod(token.c_str(), nullptr);
    if (!std::isfinite(value)) {
      i_ = start;
      fail("the number " + token + " is too large for a double");
    }
    return value;
  }

  std::string_view s_;
  const char* what_;
  size_t i_ = 0;
};

}  // namespace

Json parse_json(std::string_view text, const char* what) { return Parser(text, what).document(); }

bool is_valid_utf8(std::string_view text) noexcept {
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_sequence(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

void write_json_string(std::string_view text, std::string& out) {
  static const char kHex[] = "0123456789abcdef";
  out += '"';
  for (const char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

void write_json_number(double value, std::string& out) {
  // The shortest of %.15g..%.17g that reads back as the same double (every double has one).
  char buffer[32];
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (precision == 17 || std::strtod(buffer, nullptr) == value) break;
  }
  out += buffer;
}

void write_json(const Json& value, std::string& out) {
  switch (value.type) {
    case Json::Type::null: out += "null"; break;
    case Json::Type::boolean: out += value.boolean ? "true" : "false"; break;
    case Json::Type::number: write_json_number(value.number, out); break;
    case Json::Type::string: write_json_string(value.text, out); break;
    case Json::Type::array:
      out += '[';
      for (size_t i = 0; i < value.items.size(); ++i) {
        if (i > 0) out += ',';
        write_json(value.items[i], out);
      }
      out += ']';
      break;
    case Json::Type::object:
      out += '{';
      for (size_t i = 0; i < value.fields.size(); ++i) {
        if (i > 0) out += ',';
        write_json_string(value.fields[i].first, out);
        out += ':';
        write_json(value.fields[i].second, out);
      }
      out += '}';
      break;
  }
}

}  // namespace quiver::collection
