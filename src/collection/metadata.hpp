// A record's metadata and id rules (the limits are in quiver/collection.hpp).
#pragma once

#include <string>
#include <string_view>

#include "collection/json.hpp"
#include "quiver/collection.hpp"

namespace quiver::collection {

// Parses and checks one record's metadata ("" is none: an empty object). `canonical` receives
// the compact JSON that is stored and returned ("" for none). Error(InvalidArgument) naming
// `record` for anything outside the rules.
Json check_metadata(std::string_view text, const std::string& record, std::string& canonical);

// A declared field's name: 1-64 bytes of UTF-8, not starting with '$'.
void check_field_name(const std::string& name, const char* what);

// Error(InvalidArgument) for an integer id above 2^53 - 1 or a string id that is empty, longer
// than 256 bytes or not UTF-8.
void check_record_id(const RecordId& id);
void check_namespace(const std::string& ns, const std::string& record);

// The id as one byte string (a type byte, then 8 little-endian bytes or the UTF-8): the key of
// the collection's id map, so 7 and "7" never collide.
std::string id_key(const RecordId& id);
RecordId id_from_key(const std::string& key);

}  // namespace quiver::collection
