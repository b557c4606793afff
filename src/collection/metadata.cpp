// Metadata records and ids: what a collection accepts (metadata.hpp).
#include "collection/metadata.hpp"

#include <cstring>

#include "quiver/error.hpp"

namespace quiver::collection {

namespace {

[[noreturn]] void bad(const std::string& message) { throw Error(ErrorCode::InvalidArgument, message); }

}  // namespace

void check_field_name(const std::string& name, const char* what) {
  if (name.empty() || name.size() > kMaxFieldNameBytes)
    bad(std::string(what) + " \"" + name + "\": a field name is 1 to " + std::to_string(kMaxFieldNameBytes) + " bytes");
  if (name[0] == '$') bad(std::string(what) + " \"" + name + "\": a field name may not start with '$'");
  if (!is_valid_utf8(name)) bad(std::string(what) + ": a field name is not valid UTF-8");
}

Json check_metadata(std::string_view text, const std::string& record, std::string& canonical) {
  canonical.clear();
  if (text.empty()) {
    Json none;
    none.type = Json::Type::object;
    return none;
  }
  const std::string what = "the metadata of " + record;
  if (text.size() > kMaxJsonBytes) bad(what + " is over " + std::to_string(kMaxMetadataBytes) + " bytes");
  Json value = parse_json(text, what.c_str());
  if (!value.is(Json::Type::object)) bad(what + " must be a JSON object, not " + json_type_name(value.type));
  if (value.fields.size() > kMaxMetadataFields)
    bad(what + " has " + std::to_string(value.fields.size()) + " fields; at most " +
        std::to_string(kMaxMetadataFields) + " are allowed");
  for (const auto& [name, field] : value.fields) {
    check_field_name(name, what.c_str());
    switch (field.type) {
      case Json::Type::boolean:
      case Json::Type::number:
      case Json::Type::string: break;
      case Json::Type::array:
        if (field.items.size() > kMaxTagsPerValue)
          bad(what + ": \"" + name + "\" holds " + std::to_string(field.items.size()) + " strings; at most " +
              std::to_string(kMaxTagsPerValue) + " are allowed");
        for (const Json& item : field.items)
          if (!item.is(Json::Type::string))
            bad(what + ": \"" + name + "\" is an array, and an array holds strings only, not " +
                json_type_name(item.type));
        break;
      case Json::Type::null: bad(what + ": \"" + name + "\" is null (leave a missing value out)");
      case Json::Type::object: bad(what + ": \"" + name + "\" is an object (nested objects are not supported)");
    }
  }
  if (!value.fields.empty()) write_json(value, canonical);
  if (canonical.size() > kMaxMetadataBytes)
    bad(what + " is " + std::to_string(canonical.size()) + " bytes as compact JSON; at most " +
        std::to_string(kMaxMetadataBytes) + " are allowed");
  return value;
}

void check_record_id(const RecordId& id) {
  if (const uint64_t* n = std::get_if<uint64_t>(&id)) {
    if (*n > kMaxIntegerRecordId)
      bad("id " + std::to_string(*n) + " is above 2^53 - 1 (the largest integer a JavaScript number holds exactly)");
    return;
  }
  const std::string& s = std::get<std::string>(id);
  if (s.empty()) bad("an id may not be the empty string");
  if (s.size() > kMaxRecordIdBytes)
    bad("id " + record_id_text(id).substr(0, 40) + "... is " + std::to_string(s.size()) + " bytes; at most " +
        std::to_string(kMaxRecordIdBytes) + " are allowed");
  if (!is_valid_utf8(s)) bad("a string id is not valid UTF-8");
}

void check_namespace(const std::string& ns, const std::string& record) {
  if (ns.size() > kMaxNamespaceBytes)
    bad("the namespace of " + record + " is " + std::to_string(ns.size()) + " bytes; at most " +
        std::to_string(kMaxNamespaceBytes) + " are allowed");
  if (!is_valid_utf8(ns)) bad("the namespace of " + record + " is not valid UTF-8");
}

std::string id_key(const RecordId& id) {
  if (const uint64_t* n = std::get_if<uint64_t>(&id)) {
    std::string key(9, '\0');
    for (int i = 0; i < 8; ++i) key[1 + i] = char((*n >> (8 * i)) & 0xFF);
    return key;
  }
  return '\1' + std::get<std::string>(id);
}

RecordId id_from_key(const std::string& key) {
  if (key[0] == '\1') return key.substr(1);
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= uint64_t(static_cast<unsigned char>(key[1 + i])) << (8 * i);
  return n;
}

}  // namespace quiver::collection

namespace quiver {

std::string record_id_text(const RecordId& id) {
  if (const uint64_t* n = std::get_if<uint64_t>(&id)) return std::to_string(*n);
  std::string out;
  collection::write_json_string(std::get<std::string>(id), out);
  return out;
}

const char* field_type_name(FieldType type) noexcept {
  switch (type) {
    case FieldType::string: return "string";
    case FieldType::number: return "number";
    case FieldType::boolean: return "boolean";
    case FieldType::tags: return "tags";
  }
  return "unknown";
}

FieldType parse_field_type(const std::string& name) {
  for (FieldType t : {FieldType::string, FieldType::number, FieldType::boolean, FieldType::tags})
    if (name == field_type_name(t)) return t;
  throw Error(ErrorCode::InvalidArgument,
              "unknown field type \"" + name + "\" (the types are string, number, boolean, tags)");
}

}  // namespace quiver
