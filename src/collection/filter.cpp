// The filter language, compiled and evaluated (filter.hpp).
#include "collection/filter.hpp"

#include <cmath>
#include <cstring>

#include "collection/json.hpp"
#include "quiver/error.hpp"

namespace quiver::collection {

void RowSet::assign(size_t n, bool value) {
  rows = n;
  words.assign((n + 63) / 64, value ? ~uint64_t(0) : 0);
  if (value && (n & 63) != 0) words.back() = (uint64_t(1) << (n & 63)) - 1;
}

void RowSet::invert() noexcept {
  for (uint64_t& w : words) w = ~w;
  if ((rows & 63) != 0) words.back() &= (uint64_t(1) << (rows & 63)) - 1;
}

void RowSet::intersect(const RowSet& other) noexcept {
  for (size_t i = 0; i < words.size(); ++i) words[i] &= other.words[i];
}

void RowSet::unite(const RowSet& other) noexcept {
  for (size_t i = 0; i < words.size(); ++i) words[i] |= other.words[i];
}

size_t RowSet::count() const noexcept {
  size_t n = 0;
  for (uint64_t w : words) n += size_t(__builtin_popcountll(w));
  return n;
}

namespace {

enum class NodeKind : uint8_t { all, all_of, any_of, negation, codes, number, tags_any, tags_none };
enum class NumberOp : uint8_t { eq, ne, lt, lte, gt, gte, in, nin };

}  // namespace

struct FilterNode {
  NodeKind kind = NodeKind::all;
  std::vector<std::unique_ptr<FilterNode>> children;  // all_of, any_of, negation
  int field = -1;                                     // -1: the namespace column
  // codes (string, boolean): whether a row holding code c passes (c = 0: the field is missing);
  // tags: the codes asked about.
  std::vector<uint8_t> admit;
  NumberOp op = NumberOp::eq;
  std::vector<double> numbers;  // number: one operand, or the $in / $nin set
};

namespace {

[[noreturn]] void bad(const std::string& message) { throw Error(ErrorCode::InvalidArgument, "filter: " + message); }

const char* const kOperators = "$eq $ne $lt $lte $gt $gte $in $nin $contains, and $and $or $not";

std::unique_ptr<FilterNode> node(NodeKind kind) {
  auto n = std::make_unique<FilterNode>();
  n->kind = kind;
  return n;
}

class Compiler {
 public:
  explicit Compiler(const Columns& columns) : columns_(columns) {}

  std::unique_ptr<FilterNode> object(const Json& value) {
    if (!value.is(Json::Type::object)) bad(std::string("a filter is a JSON object, not ") + json_type_name(value.type));
    if (value.fields.empty()) return node(NodeKind::all);
    auto all = node(NodeKind::all_of);
    for (const auto& [key, v] : value.fields) {
      if (!key.empty() && key[0] == '$') {
        all->children.push_back(logical(key, v));
      } else {
        all->children.push_back(field(key, v));
      }
    }
    return all->children.size() == 1 ? std::move(all->children[0]) : std::move(all);
  }

 private:
  std::unique_ptr<FilterNode> logical(const std::string& op, const Json& v) {
    if (op == "$not") return negate(object(v));
    if (op != "$and" && op != "$or") {
      bad("unknown operator \"" + op + "\" where a field name or $and / $or / $not belongs (operators: " + kOperators +
          ")");
    }
    if (!v.is(Json::Type::array) || v.items.empty()) bad(op + " takes a non-empty array of filters");
    auto n = node(op == "$and" ? NodeKind::all_of : NodeKind::any_of);
    for (const Json& item : v.items) n->children.push_back(object(item));
    return n;
  }

  static std::unique_ptr<FilterNode> negate(std::unique_ptr<FilterNode> child) {
    auto n = node(NodeKind::negation);
    n->children.push_back(std::move(child));
    return n;
  }

  std::unique_ptr<FilterNode> field(const std::string& name, const Json& v) {
    const int f = columns_.field_index(name);
    if (f < 0) {
      std::string declared;
      for (const FieldSpec& s : columns_.fields()) declared += (declared.empty() ? "" : ", ") + s.name;
      bad("\"" + name + "\" is not a declared filterable field (declared: " +
          (declared.empty() ? std::string("none") : declared) + ")");
    }
    const FieldType type = columns_.fields()[f].type;
    if (!v.is(Json::Type::object)) return condition(f, type, name, type == FieldType::tags ? "$contains" : "$eq", v);
    if (v.fields.empty()) bad("\"" + name + "\": an empty object is not a condition");
    auto all = node(NodeKind::all_of);
    for (const auto& [op, operand] : v.fields) all->children.push_back(condition(f, type, name, op, operand));
    return all->children.size() == 1 ? std::move(all->children[0]) : std::move(all);
  }

  // The code table of a string field: pass(text) for each string it holds, pass(nullptr) for
  // a row without the field.
  template <typename Pass>
  std::unique_ptr<FilterNode> codes(int f, const Pass& pass) {
    auto n = node(NodeKind::codes);
    n->field = f;
    const Dictionary& dict = columns_.column(size_t(f)).dict;
    n->admit.resize(dict.codes());
    n->admit[0] = uint8_t(pass(nullptr));
    for (uint32_t code = 1; code < dict.codes(); ++code) n->admit[code] = uint8_t(pass(&dict.text(code)));
    return n;
  }

  void expect(const Json& v, Json::Type t, const std::string& name, const std::string& op, FieldType type) {
    if (!v.is(t))
      bad("\"" + name + "\" is a " + field_type_name(type) + " field: " + op + " needs " + json_type_name(t) +
          ", not " + json_type_name(v.type));
  }

  const Json& list(const Json& v, const std::string& name, const std::string& op) {
    if (!v.is(Json::Type::array)) bad("\"" + name + "\": " + op + " takes an array, not " + json_type_name(v.type));
    return v;
  }

  std::unique_ptr<FilterNode> condition(int f, FieldType type, const std::string& name, const std::string& op,
                                        const Json& v) {
    const bool eq = op == "$eq", ne = op == "$ne", in = op == "$in", nin = op == "$nin";
    const bool range = op == "$lt" || op == "$lte" || op == "$gt" || op == "$gte";
    if (!(eq || ne || in || nin || range || op == "$contains")) {
      if (op.empty() || op[0] != '$')
        bad("\"" + name + "\": \"" + op + "\" is not an operator (a field's object holds operators: " + kOperators +
            ")");
      bad("\"" + name + "\": unknown operator \"" + op + "\" (operators: " + kOperators + ")");
    }
    const auto refuse = [&](const char* why) {
      bad("\"" + name + "\" is a " + field_type_name(type) + " field: " + why);
    };
    switch (type) {
      case FieldType::number: {
        if (op == "$contains") refuse("$contains is for tags fields");
        auto n = node(NodeKind::number);
        n->field = f;
        static const std::pair<const char*, NumberOp> kOps[] = {
            {"$eq", NumberOp::eq}, {"$ne", NumberOp::ne},   {"$lt", NumberOp::lt}, {"$lte", NumberOp::lte},
            {"$gt", NumberOp::gt}, {"$gte", NumberOp::gte}, {"$in", NumberOp::in}, {"$nin", NumberOp::nin}};
        for (const auto& [text, value] : kOps)
          if (op == text) n->op = value;
        if (in || nin) {
          for (const Json& item : list(v, name, op).items) {
            expect(item, Json::Type::number, name, op, type);
            n->numbers.push_back(item.number);
          }
        } else {
          expect(v, Json::Type::number, name, op, type);
          n->numbers.push_back(v.number);
        }
        return n;
      }
      case FieldType::string: {
        if (op == "$contains") refuse("$contains is for tags fields");
        std::vector<std::string> set;
        if (in || nin) {
          for (const Json& item : list(v, name, op).items) {
            expect(item, Json::Type::string, name, op, type);
            set.push_back(item.text);
          }
        } else {
          expect(v, Json::Type::string, name, op, type);
          set.push_back(v.text);
        }
        const std::string operand = set.empty() ? std::string() : set[0];
        return codes(f, [&](const std::string* s) {
          if (s == nullptr) return ne || nin;  // missing
          bool member = false;
          for (const std::string& x : set) member = member || *s == x;
          if (eq || in) return member;
          if (ne || nin) return !member;
          const int c = s->compare(operand);
          return op == "$lt" ? c < 0 : op == "$lte" ? c <= 0 : op == "$gt" ? c > 0 : c >= 0;
        });
      }
      case FieldType::boolean: {
        if (range) refuse("it has no order ($eq, $ne, $in, $nin only)");
        if (op == "$contains") refuse("$contains is for tags fields");
        bool admits[2] = {false, false};  // false, true
        if (in || nin) {
          for (const Json& item : list(v, name, op).items) {
            expect(item, Json::Type::boolean, name, op, type);
            admits[item.boolean] = true;
          }
        } else {
          expect(v, Json::Type::boolean, name, op, type);
          admits[v.boolean] = true;
        }
        auto n = node(NodeKind::codes);
        n->field = f;
        const bool negated = ne || nin;
        n->admit = {uint8_t(negated), uint8_t(admits[0] != negated), uint8_t(admits[1] != negated)};
        return n;
      }
      case FieldType::tags: {
        if (!(op == "$contains" || in || nin))
          refuse("a tags field takes $contains (one tag), $in (any of) or $nin (none of)");
        auto n = node(nin ? NodeKind::tags_none : NodeKind::tags_any);
        n->field = f;
        const Columns::Column& c = columns_.column(size_t(f));
        n->admit.assign(c.dict.codes(), 0);
        const auto add = [&](const Json& item) {
          expect(item, Json::Type::string, name, op, type);
          if (const uint32_t code = c.dict.find(item.text)) n->admit[code] = 1;
        };
        if (op == "$contains") {
          add(v);
        } else {
          for (const Json& item : list(v, name, op).items) add(item);
        }
        return n;
      }
    }
    bad("\"" + name + "\" has an unknown type");
  }

  const Columns& columns_;
};

bool number_passes(const FilterNode& n, double x) noexcept {
  if (std::isnan(x)) return n.op == NumberOp::ne || n.op == NumberOp::nin;  // missing
  const double v = n.numbers.empty() ? 0 : n.numbers[0];
  switch (n.op) {
    case NumberOp::eq: return x == v;
    case NumberOp::ne: return x != v;
    case NumberOp::lt: return x < v;
    case NumberOp::lte: return x <= v;
    case NumberOp::gt: return x > v;
    case NumberOp::gte: return x >= v;
    case NumberOp::in:
    case NumberOp::nin: {
      bool member = false;
      for (double y : n.numbers) member = member || x == y;
      return member == (n.op == NumberOp::in);
    }
  }
  return false;
}

const Columns::Column& column_of(const Columns& columns, const FilterNode& n) {
  return n.field < 0 ? columns.ns() : columns.column(size_t(n.field));
}

bool tags_hit(const Columns::Column& c, const FilterNode& n, uint32_t row) noexcept {
  const uint32_t start = c.tag_start[row];
  for (uint32_t i = 0; i < c.tag_count[row]; ++i) {
    const uint32_t code = c.tag_pool[start + i];
    if (code < n.admit.size() && n.admit[code]) return true;
  }
  return false;
}

bool row_matches(const FilterNode& n, const Columns& columns, uint32_t row) {
  switch (n.kind) {
    case NodeKind::all: return true;
    case NodeKind::all_of:
      for (const auto& child : n.children)
        if (!row_matches(*child, columns, row)) return false;
      return true;
    case NodeKind::any_of:
      for (const auto& child : n.children)
        if (row_matches(*child, columns, row)) return true;
      return false;
    case NodeKind::negation: return !row_matches(*n.children[0], columns, row);
    case NodeKind::codes: {
      const Columns::Column& c = column_of(columns, n);
      const uint32_t code = c.type == FieldType::boolean ? c.booleans[row] : c.codes[row];
      return code < n.admit.size() && n.admit[code];
    }
    case NodeKind::number: return number_passes(n, columns.column(size_t(n.field)).numbers[row]);
    case NodeKind::tags_any: return tags_hit(columns.column(size_t(n.field)), n, row);
    case NodeKind::tags_none: return !tags_hit(columns.column(size_t(n.field)), n, row);
  }
  return false;
}

// Sets the bits of the rows `pass(row)` admits, 64 rows to a word.
template <typename Pass>
void scan(RowSet& out, size_t rows, const Pass& pass) {
  out.assign(rows, false);
  const size_t full = rows / 64;
  // Whole words: 64 rows to one byte each (a loop the compiler vectorises), then 8 bytes at a
  // time to 8 bits (bytes of 0 or 1 times 0x0102040810204080 gather in the top byte).
  uint8_t bytes[64];
  for (size_t w = 0; w < full; ++w) {
    const uint32_t base = uint32_t(w * 64);
    for (uint32_t j = 0; j < 64; ++j) bytes[j] = uint8_t(pass(base + j));
    uint64_t bits = 0;
    for (int b = 0; b < 8; ++b) {
      uint64_t eight;
      std::memcpy(&eight, bytes + 8 * b, 8);
      bits |= ((eight * 0x0102040810204080ull) >> 56) << (8 * b);
    }
    out.words[w] = bits;
  }
  if (full < out.words.size()) {
    uint64_t bits = 0;
    for (size_t r = full * 64; r < rows; ++r) bits |= uint64_t(pass(uint32_t(r))) << (r - full * 64);
    out.words[full] = bits;
  }
}

RowSet evaluate_node(const FilterNode& n, const Columns& columns) {
  const size_t rows = columns.rows();
  RowSet out;
  switch (n.kind) {
    case NodeKind::all: out.assign(rows, true); break;
    case NodeKind::all_of:
    case NodeKind::any_of:
      out = evaluate_node(*n.children[0], columns);
      for (size_t i = 1; i < n.children.size(); ++i) {
        const RowSet other = evaluate_node(*n.children[i], columns);
        if (n.kind == NodeKind::all_of) {
          out.intersect(other);
        } else {
          out.unite(other);
        }
      }
      break;
    case NodeKind::negation:
      out = evaluate_node(*n.children[0], columns);
      out.invert();
      break;
    case NodeKind::codes: {
      const Columns::Column& c = column_of(columns, n);
      const uint8_t* admit = n.admit.data();
      const size_t codes = n.admit.size();
      if (c.type == FieldType::boolean) {
        const uint8_t* b = c.booleans.data();
        scan(out, rows, [&](uint32_t r) { return admit[b[r]] != 0; });
      } else {
        const uint32_t* code = c.codes.data();
        scan(out, rows, [&](uint32_t r) { return code[r] < codes && admit[code[r]] != 0; });
      }
      break;
    }
    case NodeKind::number: {
      // One tight loop per operator. A missing value is NaN, which every comparison but != and
      // the negated set fails, as the rules say — no test for it is needed.
      const double* x = columns.column(size_t(n.field)).numbers.data();
      const double v = n.numbers.empty() ? 0 : n.numbers[0];
      switch (n.op) {
        case NumberOp::eq: scan(out, rows, [&](uint32_t r) { return x[r] == v; }); break;
        case NumberOp::ne: scan(out, rows, [&](uint32_t r) { return !(x[r] == v); }); break;
        case NumberOp::lt: scan(out, rows, [&](uint32_t r) { return x[r] < v; }); break;
        case NumberOp::lte: scan(out, rows, [&](uint32_t r) { return x[r] <= v; }); break;
        case NumberOp::gt: scan(out, rows, [&](uint32_t r) { return x[r] > v; }); break;
        case NumberOp::gte: scan(out, rows, [&](uint32_t r) { return x[r] >= v; }); break;
        case NumberOp::in:
        case NumberOp::nin: scan(out, rows, [&](uint32_t r) { return number_passes(n, x[r]); }); break;
      }
      break;
    }
    case NodeKind::tags_any:
    case NodeKind::tags_none: {
      const Columns::Column& c = columns.column(size_t(n.field));
      const bool any = n.kind == NodeKind::tags_any;
      scan(out, rows, [&](uint32_t r) { return tags_hit(c, n, r) == any; });
      break;
    }
  }
  return out;
}

}  // namespace

Filter::Filter() = default;
Filter::Filter(Filter&&) noexcept = default;
Filter& Filter::operator=(Filter&&) noexcept = default;
Filter::~Filter() = default;

Filter Filter::compile(std::string_view json, const Columns& columns) {
  Filter f;
  f.root_ = Compiler(columns).object(parse_json(json, "the filter"));
  return f;
}

RowSet Filter::evaluate(const Columns& columns) const { return evaluate_node(*root_, columns); }

bool Filter::matches(const Columns& columns, uint32_t row) const { return row_matches(*root_, columns, row); }

}  // namespace quiver::collection
