#include "checkpoint/safetensors.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <utility>

#include "util/atomic_file.h"

// The format stores little-endian bytes and both reader and writer copy them verbatim.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors I/O assumes a little-endian host");

namespace capaboost {
namespace {

// The Rust reference implementation refuses larger headers; a bigger length field means a corrupt file.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
constexpr const char* kMetadataKey = "__metadata__";

struct DtypeName {
  const char* name;
  torch::ScalarType dtype;
};
constexpr std::array<DtypeName, 10> kDtypes = {{{"F64", torch::kFloat64},
                                                {"F32", torch::kFloat32},
                                                {"F16", torch::kFloat16},
                                                {"BF16", torch::kBFloat16},
                                                {"I64", torch::kInt64},
                                                {"I32", torch::kInt32},
                                                {"I16", torch::kInt16},
                                                {"I8", torch::kInt8},
                                                {"U8", torch::kUInt8},
                                                {"BOOL", torch::kBool}}};

const char* find_dtype_name(torch::ScalarType dtype) {
  for (const auto& entry : kDtypes) {
    if (entry.dtype == dtype) return entry.name;
  }
  return nullptr;
}

std::string supported_dtype_names() {
  std::vector<std::string> names;
  for (const auto& entry : kDtypes) names.emplace_back(entry.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string file_context(const std::string& path) { return fmt::format("safetensors file '{}'", path); }

std::string tensor_context(const std::string& path, const std::string& name) {
  return fmt::format("safetensors file '{}': tensor '{}'", path, name);
}

// numel × element size, or nullopt on overflow (a corrupt shape must not wrap around to a small size).
std::optional<uint64_t> byte_size(const std::vector<int64_t>& shape, torch::ScalarType dtype) {
  uint64_t bytes = c10::elementSize(dtype);
  for (int64_t dim : shape) {
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(dim), &bytes)) return std::nullopt;
  }
  return bytes;
}

// Parses the header, rejecting duplicate top-level names: nlohmann::json would silently keep the last.
nlohmann::json parse_header(const std::string& path, const char* text, std::size_t size) {
  TORCH_CHECK(size > 0 && text[0] == '{', file_context(path),
              ": the header does not start with '{' (not a safetensors file, or corrupt)");
  std::set<std::string> seen;
  std::string duplicate;
  const nlohmann::json::parser_callback_t reject_duplicates =
      [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        if (event == nlohmann::json::parse_event_t::key && depth == 1 &&
            !seen.insert(parsed.get<std::string>()).second && duplicate.empty()) {
          duplicate = parsed.get<std::string>();
        }
        return true;
      };
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text, text + size, reject_duplicates);
  } catch (const nlohmann::json::exception& error) {  // parse_error, or out_of_range for a number like 1e400
    TORCH_CHECK(false, file_context(path), ": the header is not valid JSON: ", error.what());
  }
  TORCH_CHECK(duplicate.empty(), tensor_context(path, duplicate),
              ": the name appears more than once in the header");
  TORCH_CHECK(header.is_object(), file_context(path), ": the header is not a JSON object");
  return header;
}

std::map<std::string, std::string> parse_metadata(const std::string& path, const nlohmann::json& value) {
  TORCH_CHECK(value.is_object(), file_context(path), ": __metadata__ must be an object of strings");
  std::map<std::string, std::string> metadata;
  for (const auto& [key, item] : value.items()) {
    TORCH_CHECK(item.is_string(), file_context(path), ": __metadata__ value of '", key,
                "' must be a string, got ", item.dump());
    metadata.emplace(key, item.get<std::string>());
  }
  return metadata;
}

SafetensorsEntry parse_entry(const std::string& path, const std::string& name, const nlohmann::json& value,
                             uint64_t data_size) {
  const auto where = tensor_context(path, name);
  TORCH_CHECK(value.is_object(), where, ": the header entry must be an object, got ", value.dump());
  for (const char* field : {"dtype", "shape", "data_offsets"}) {
    TORCH_CHECK(value.contains(field), where, ": the header entry lacks '", field, "'");
  }
  SafetensorsEntry entry;
  entry.name = name;
  const auto& dtype = value["dtype"];
  TORCH_CHECK(dtype.is_string(), where, ": dtype must be a string, got ", dtype.dump());
  const auto dtype_name = dtype.get<std::string>();
  const auto known =
      std::find_if(kDtypes.begin(), kDtypes.end(), [&](const DtypeName& d) { return dtype_name == d.name; });
  TORCH_CHECK(known != kDtypes.end(), where, ": unknown dtype '", dtype_name,
              "' (supported: ", supported_dtype_names(), ")");
  entry.dtype = known->dtype;

  const auto& shape = value["shape"];
  TORCH_CHECK(shape.is_array(), where, ": shape must be an array, got ", shape.dump());
  for (const auto& dim : shape) {
    TORCH_CHECK(dim.is_number_unsigned(), where, ": shape ", shape.dump(),
                " must hold non-negative integers");
    entry.shape.push_back(dim.get<int64_t>());
  }

  const auto& offsets = value["data_offsets"];
  TORCH_CHECK(offsets.is_array() && offsets.size() == 2 && offsets[0].is_number_unsigned() &&
                  offsets[1].is_number_unsigned(),
              where, ": data_offsets must be two non-negative integers, got ", offsets.dump());
  entry.begin = offsets[0].get<uint64_t>();
  entry.end = offsets[1].get<uint64_t>();
  TORCH_CHECK(entry.begin <= entry.end, where, ": data_offsets [", entry.begin, ", ", entry.end,
              "] run backwards");
  TORCH_CHECK(entry.end <= data_size, where, ": data_offsets [", entry.begin, ", ", entry.end,
              "] run past the end of the data section (", data_size,
              " bytes): the file is truncated or corrupt");
  const auto expected = byte_size(entry.shape, entry.dtype);
  TORCH_CHECK(expected.has_value(), where, ": shape ", shape.dump(), " overflows");
  TORCH_CHECK(*expected == entry.end - entry.begin, where, ": shape ", shape.dump(), " of ", dtype_name,
              " needs ", *expected, " bytes but data_offsets [", entry.begin, ", ", entry.end, "] hold ",
              entry.end - entry.begin);
  return entry;
}

// The tensors must tile the data section exactly, as the reference implementation requires: sorted by
// offset, each starts where the previous ended, the last ends at the end of the file.
void check_tiling(const std::string& path, const std::map<std::string, SafetensorsEntry>& entries,
                  uint64_t data_size) {
  std::vector<const SafetensorsEntry*> by_offset;
  for (const auto& item : entries) by_offset.push_back(&item.second);
  std::sort(by_offset.begin(), by_offset.end(), [](const SafetensorsEntry* a, const SafetensorsEntry* b) {
    return std::tie(a->begin, a->end) < std::tie(b->begin, b->end);
  });
  uint64_t covered = 0;
  const SafetensorsEntry* previous = nullptr;
  for (const auto* entry : by_offset) {
    const auto where = tensor_context(path, entry->name);
    TORCH_CHECK(entry->begin >= covered, where, ": data_offsets [", entry->begin, ", ", entry->end,
                "] overlap tensor '", previous ? previous->name : "", "' which ends at ", covered);
    TORCH_CHECK(entry->begin == covered, where, ": data_offsets [", entry->begin, ", ", entry->end,
                "] leave a gap after ",
                previous ? "tensor '" + previous->name + "' which ends at " : "the start ", covered,
                " (the data must be contiguous)");
    covered = entry->end;
    previous = entry;
  }
  TORCH_CHECK(covered == data_size, file_context(path), ": the tensors cover ", covered,
              " bytes but the data section has ", data_size, " (trailing bytes: corrupt file)");
}

}  // namespace

std::string safetensors_dtype_name(torch::ScalarType dtype) {
  if (const char* name = find_dtype_name(dtype)) return name;
  TORCH_CHECK(false, "safetensors cannot store dtype ", c10::toString(dtype),
              " (supported: ", supported_dtype_names(), ")");
}

torch::ScalarType parse_safetensors_dtype(const std::string& name) {
  for (const auto& entry : kDtypes) {
    if (name == entry.name) return entry.dtype;
  }
  TORCH_CHECK(false, "unknown safetensors dtype '", name, "' (supported: ", supported_dtype_names(), ")");
}

SafetensorsFile::SafetensorsFile(const std::string& path)
    : path_(path), mapping_(std::make_shared<MappedFile>(path, file_context(path))) {
  const uint64_t file_size = mapping_->size();
  TORCH_CHECK(file_size >= 8, file_context(path), ": the file has ", file_size,
              " bytes, fewer than the 8-byte header length (truncated or not a safetensors file)");

  uint64_t header_size = 0;
  std::memcpy(&header_size, mapping_->data(), 8);
  TORCH_CHECK(header_size <= kMaxHeaderBytes, file_context(path), ": the header length field says ",
              header_size, " bytes, above the format's limit of ", kMaxHeaderBytes,
              " (corrupt or not a safetensors file)");
  TORCH_CHECK(header_size <= file_size - 8, file_context(path), ": the header length field says ",
              header_size, " bytes but only ", file_size - 8,
              " follow it (truncated or not a safetensors file)");
  data_start_ = 8 + header_size;
  const uint64_t data_size = file_size - data_start_;

  const auto header = parse_header(path, reinterpret_cast<const char*>(mapping_->data()) + 8, header_size);
  for (const auto& [name, value] : header.items()) {
    if (name == kMetadataKey) {
      metadata_ = parse_metadata(path, value);
    } else {
      entries_.emplace(name, parse_entry(path, name, value, data_size));
    }
  }
  check_tiling(path, entries_, data_size);
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> names;
  for (const auto& item : entries_) names.push_back(item.first);
  return names;
}

const SafetensorsEntry& SafetensorsFile::entry(const std::string& name) const {
  const auto found = entries_.find(name);
  TORCH_CHECK(found != entries_.end(), tensor_context(path_, name), ": no such tensor in the file");
  return found->second;
}

torch::Tensor SafetensorsFile::tensor(const std::string& name) const {
  const auto& e = entry(name);
  const auto options = torch::TensorOptions().dtype(e.dtype);
  uint8_t* data = mapping_->data() + data_start_ + e.begin;
  // The format does not align tensors; a misaligned view would break vectorised kernels, so copy.
  if (e.begin == e.end || reinterpret_cast<uintptr_t>(data) % c10::elementSize(e.dtype) != 0) {
    auto copy = torch::empty(e.shape, options);
    if (e.end > e.begin) std::memcpy(copy.data_ptr(), data, e.end - e.begin);
    return copy;
  }
  auto keep_alive = mapping_;
  return torch::from_blob(
      data, e.shape, [keep_alive](void*) {}, options);
}

std::map<std::string, torch::Tensor> SafetensorsFile::tensors() const {
  std::map<std::string, torch::Tensor> all;
  for (const auto& item : entries_) all.emplace(item.first, tensor(item.first));
  return all;
}

void save_safetensors(const std::string& path, const std::map<std::string, torch::Tensor>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  nlohmann::ordered_json header;
  auto& meta = header[kMetadataKey] = nlohmann::ordered_json::object();
  for (const auto& [key, value] : metadata) meta[key] = value;
  meta["format"] = "pt";

  // std::map iterates in byte order of the names, the order Hugging Face writes.
  std::vector<torch::Tensor> data;
  uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    TORCH_CHECK(name != kMetadataKey && !name.empty(), "saving '", path, "': invalid tensor name '", name,
                "'");
    TORCH_CHECK(tensor.defined(), "saving '", path, "': tensor '", name, "' is undefined");
    const char* dtype = find_dtype_name(tensor.scalar_type());
    TORCH_CHECK(dtype, "saving '", path, "': tensor '", name, "' has dtype ",
                c10::toString(tensor.scalar_type()),
                ", which safetensors cannot store (supported: ", supported_dtype_names(), ")");
    auto bytes = tensor.detach().to(torch::kCPU).contiguous();
    const auto size = static_cast<uint64_t>(bytes.numel()) * bytes.element_size();
    header[name] = {
        {"dtype", dtype}, {"shape", bytes.sizes().vec()}, {"data_offsets", {offset, offset + size}}};
    offset += size;
    data.push_back(std::move(bytes));
  }
  auto text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // data section starts 8-byte aligned, as HF pads it
  const uint64_t header_size = text.size();

  write_file_atomically(path, [&](const ByteSink& sink) {
    sink(&header_size, 8);
    sink(text.data(), text.size());
    for (const auto& tensor : data) sink(tensor.data_ptr(), static_cast<std::size_t>(tensor.nbytes()));
  });
}

}  // namespace capaboost
