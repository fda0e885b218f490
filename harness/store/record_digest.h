#pragma once
// A run record's seal: the SHA-256 of its content, written into the record as "digest" and checked
// whenever the store reads it, so a record edited, truncated or half-copied on a shared file system is
// told from a good one (`capaboost fsck` quarantines it; reports and `verify` never use it).
//
//   {"key": "…", "schema_version": 3, …, "digest": "sha256:9f86d0…"}
//
// The digest covers the record's JSON without its "digest" member as nlohmann::json::dump() writes it
// (object keys sorted, numbers in their shortest round-trip form), so it does not depend on the file's
// indentation and a parse → dump round trip gives it back exactly. Records of schema 2 and older were
// written before seals: they carry none and are read as unsealed.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace capaboost::harness {

/// "sha256:<hex>" of `record` without its "digest" member.
std::string record_digest(const nlohmann::json& record);

/// `record` with "digest" set to record_digest(record).
nlohmann::json sealed(nlohmann::json record);

/// What is wrong with a parsed record file's seal, or nullopt when it holds (or the record is of a
/// schema before seals, ≤ 2): "its digest does not match its content (…)", "it has no digest, which
/// schema 3 records carry", "its digest is not a string".
std::optional<std::string> seal_problem(const nlohmann::json& record);

/// Whether the record was written before seals (schema ≤ 2, no digest): readable, not checkable.
bool is_unsealed(const nlohmann::json& record);

}  // namespace capaboost::harness
