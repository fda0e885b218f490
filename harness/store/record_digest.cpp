#include "store/record_digest.h"

#include "store/run_record.h"
#include "util/sha256.h"

#include <fmt/format.h>

namespace capaboost::harness {
namespace {

int schema_of(const nlohmann::json& record) {
  const auto it = record.find("schema_version");
  return it != record.end() && it->is_number_integer() ? it->get<int>() : 1;
}

}  // namespace

std::string record_digest(const nlohmann::json& record) {
  nlohmann::json content = record;
  if (content.is_object()) content.erase("digest");
  return "sha256:" + sha256_hex(content.dump());
}

nlohmann::json sealed(nlohmann::json record) {
  record["digest"] = record_digest(record);
  return record;
}

bool is_unsealed(const nlohmann::json& record) {
  return record.is_object() && !record.contains("digest") && schema_of(record) < kFirstSealedRecordSchema;
}

std::optional<std::string> seal_problem(const nlohmann::json& record) {
  if (!record.is_object()) return "it is not a JSON object";
  const auto it = record.find("digest");
  if (it == record.end()) {
    if (schema_of(record) < kFirstSealedRecordSchema) return std::nullopt;
    return fmt::format("it has no digest, which records of schema {} carry", schema_of(record));
  }
  if (!it->is_string()) return "its digest is not a string";
  const std::string expected = record_digest(record);
  if (it->get<std::string>() != expected) {
    return fmt::format("its digest does not match its content (it says {}, its content gives {}): it was edited "
                       "or damaged after it was written",
                       it->get<std::string>().substr(0, 19), expected.substr(0, 19));
  }
  return std::nullopt;
}

}  // namespace capaboost::harness
