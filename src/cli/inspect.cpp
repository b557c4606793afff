// `quiver info FILE`: what an index file holds, after validating it completely (container,
// checksums and, for the kinds this build knows, the contents by loading it).
#include <iomanip>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "quiver/quiver.hpp"

namespace quiver::cli {

int run_inspect(const std::string& path, bool json) {
  IndexFileInfo info;
  try {
    info = inspect_index_file(path);
  } catch (const Error& e) {
    throw Error(e.code(), path + ": " + e.what());
  }
  // Load to validate the contents too; a kind this build cannot load is still described.
  std::unique_ptr<AnyIndex> index;
  std::string unchecked;
  try {
    index = load_index_file(path);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::UnknownIndexKind) throw;
    unchecked = e.what();
  }
  if (json) {
    nlohmann::json sections = nlohmann::json::array();
    for (const auto& s : info.sections) {
      sections.push_back(
          {{"tag", s.tag}, {"offset", s.offset}, {"size", s.size}, {"crc32c", s.crc32c}, {"required", s.required}});
    }
    nlohmann::json j{{"file", path},
                     {"format_version", std::to_string(info.version_major) + "." + std::to_string(info.version_minor)},
                     {"kind", index_kind_name(info.kind)},
                     {"metric", metric_name(info.metric)},
                     {"dim", info.dim},
                     {"count", info.count},
                     {"seed", info.seed},
                     {"params", info.params},
                     {"file_bytes", info.file_bytes},
                     {"memory_bytes", index ? index->memory_bytes() : 0},
                     {"summary", index ? index->describe() : std::string()},
                     {"sections", sections},
                     {"valid", true},
                     {"contents_checked", index != nullptr}};
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << path << ": quiver index file, format " << info.version_major << "." << info.version_minor << "\n"
            << "kind:     " << index_kind_name(info.kind) << (index ? " (" + index->describe() + ")" : "") << "\n"
            << "metric:   " << metric_name(info.metric) << "\n"
            << "vectors:  " << info.count << " x " << info.dim << "\n"
            << "seed:     " << info.seed << "\n"
            << "size:     " << info.file_bytes << " bytes on disk"
            << (index ? ", " + std::to_string(index->memory_bytes()) + " bytes in memory" : "") << "\n"
            << "sections:\n";
  for (const auto& s : info.sections) {
    std::cout << "  " << s.tag << "  offset " << std::setw(10) << s.offset << "  size " << std::setw(12) << s.size
              << "  crc32c " << std::hex << std::setw(8) << std::setfill('0') << s.crc32c << std::dec
              << std::setfill(' ') << (s.required ? "" : "  (optional)") << "\n";
  }
  if (index) {
    std::cout << "valid:    yes (container, checksums and contents)\n";
  } else {
    std::cout << "valid:    container and checksums; contents not checked (" << unchecked << ")\n";
  }
  return 0;
}

}  // namespace quiver::cli
