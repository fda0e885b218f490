#include "checkpoint/gguf_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "checkpoint/mapped_file.h"

// The reader copies the file's little-endian numbers verbatim; a big-endian host would need swaps.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "GGUF reading assumes a little-endian host");

namespace capaboost {

namespace {

constexpr char kMagic[4] = {'G', 'G', 'U', 'F'};
// magic, version, tensor count, metadata count
constexpr uint64_t kHeaderBytes = 4 + 4 + 8 + 8;
constexpr uint64_t kDefaultAlignment = 32;
constexpr const char* kAlignmentKey = "general.alignment";
// ggml's GGML_MAX_DIMS: a ggml tensor has at most four dimensions, and llama.cpp refuses more.
constexpr uint32_t kMaxDimensions = 4;
// Arrays of arrays are valid GGUF (no model uses them); each level costs a stack frame here, so a file
// of nothing but nested array headers must not recurse without bound.
constexpr int kMaxArrayDepth = 16;
// The least a metadata entry (8-byte key length, 4-byte type, a 1-byte value) and a tensor table entry
// (8-byte name length, 4-byte dimension count, 4-byte type, 8-byte offset) can take: the counts in the
// header cannot exceed the bytes left divided by these.
constexpr uint64_t kMinMetadataEntryBytes = 8 + 4 + 1;
constexpr uint64_t kMinTensorEntryBytes = 8 + 4 + 4 + 8;

std::string file_context(const std::string& path) { return fmt::format("GGUF file '{}'", path); }

// The fewest bytes one value of `type` takes (a string: its length; an array: element type and count).
uint64_t min_value_bytes(GgufValueType type) {
  switch (type) {
    case GgufValueType::kUint8:
    case GgufValueType::kInt8:
    case GgufValueType::kBool: return 1;
    case GgufValueType::kUint16:
    case GgufValueType::kInt16: return 2;
    case GgufValueType::kUint32:
    case GgufValueType::kInt32:
    case GgufValueType::kFloat32: return 4;
    case GgufValueType::kString:
    case GgufValueType::kUint64:
    case GgufValueType::kInt64:
    case GgufValueType::kFloat64: return 8;
    case GgufValueType::kArray: return 4 + 8;
  }
  return 1;
}

bool known_value_type(uint32_t code) { return code <= static_cast<uint32_t>(GgufValueType::kFloat64); }

// Reads the header, the metadata and the tensor table front to back. Every read checks the bytes left
// and names, in its error, the file, the field and the byte offset where it stood.
class GgufCursor {
 public:
  GgufCursor(const std::string& path, const uint8_t* bytes, uint64_t size)
      : path_(path), bytes_(bytes), size_(size) {}

  uint64_t position() const { return position_; }
  uint64_t remaining() const { return size_ - position_; }

  template <typename T>
  T scalar(const std::string& field) {
    static_assert(std::is_trivially_copyable_v<T>);
    TORCH_CHECK(remaining() >= sizeof(T), file_context(path_), ": ", field, ": needs ", sizeof(T),
                " bytes at byte ", position_, " but the file ends after ", remaining(), " (truncated)");
    T value;
    std::memcpy(&value, bytes_ + position_, sizeof(T));
    position_ += sizeof(T);
    return value;
  }

  std::string string(const std::string& field) {
    const auto length = scalar<uint64_t>(field + ": string length");
    TORCH_CHECK(length <= remaining(), file_context(path_), ": ", field, ": a string of ", length,
                " bytes at byte ", position_, " runs past the end of the file (", remaining(), " bytes left)");
    std::string text(reinterpret_cast<const char*>(bytes_ + position_), length);
    position_ += length;
    return text;
  }

  // A count of items that take at least `min_bytes_each` bytes each, checked against the bytes left so
  // that an absurd count fails here, before anything is allocated for it.
  uint64_t count(const std::string& field, uint64_t min_bytes_each) {
    const auto n = scalar<uint64_t>(field);
    TORCH_CHECK(n <= remaining() / min_bytes_each, file_context(path_), ": ", field, ": ", n,
                " items of at least ", min_bytes_each, " bytes cannot fit in the ", remaining(),
                " bytes left (corrupt or truncated)");
    return n;
  }

  GgufValueType value_type(const std::string& field) {
    const auto code = scalar<uint32_t>(field);
    TORCH_CHECK(known_value_type(code), file_context(path_), ": ", field, ": unknown value type ", code,
                " (GGUF defines 0 to 12)");
    return static_cast<GgufValueType>(code);
  }

  GgufValue value(GgufValueType type, const std::string& field, int depth) {
    switch (type) {
      case GgufValueType::kUint8: return {scalar<uint8_t>(field)};
      case GgufValueType::kInt8: return {scalar<int8_t>(field)};
      case GgufValueType::kUint16: return {scalar<uint16_t>(field)};
      case GgufValueType::kInt16: return {scalar<int16_t>(field)};
      case GgufValueType::kUint32: return {scalar<uint32_t>(field)};
      case GgufValueType::kInt32: return {scalar<int32_t>(field)};
      case GgufValueType::kFloat32: return {scalar<float>(field)};
      case GgufValueType::kUint64: return {scalar<uint64_t>(field)};
      case GgufValueType::kInt64: return {scalar<int64_t>(field)};
      case GgufValueType::kFloat64: return {scalar<double>(field)};
      case GgufValueType::kString: return {string(field)};
      case GgufValueType::kBool: {
        const auto byte = scalar<uint8_t>(field);
        TORCH_CHECK(byte <= 1, file_context(path_), ": ", field, ": a bool must be 0 or 1, got ",
                    static_cast<int>(byte), " at byte ", position_ - 1);
        return {byte == 1};
      }
      case GgufValueType::kArray: return {array(field, depth)};
    }
    TORCH_CHECK(false, file_context(path_), ": ", field, ": unknown value type ", static_cast<uint32_t>(type));
  }

 private:
  GgufArray array(const std::string& field, int depth) {
    TORCH_CHECK(depth < kMaxArrayDepth, file_context(path_), ": ", field, ": arrays nested deeper than ",
                kMaxArrayDepth, " levels (corrupt)");
    GgufArray result;
    result.element_type = value_type(field + ": array element type");
    const auto n = count(field + ": array length", min_value_bytes(result.element_type));
    result.elements.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
      result.elements.push_back(value(result.element_type, fmt::format("{}[{}]", field, i), depth + 1));
    }
    return result;
  }

  const std::string& path_;
  const uint8_t* bytes_;
  uint64_t size_;
  uint64_t position_ = 0;
};

// Reads the version and refuses what this reader cannot read, saying why.
uint32_t read_version(GgufCursor& cursor, const std::string& path) {
  const auto version = cursor.scalar<uint32_t>("header: version");
  // A big-endian file stores the version's bytes the other way round: 3 reads as 0x03000000.
  TORCH_CHECK((version & 0xffffu) != 0, file_context(path), ": header: version field ", version,
              " is a big-endian GGUF file, which this little-endian reader does not read");
  TORCH_CHECK(version != 1, file_context(path),
              ": header: GGUF version 1 (32-bit lengths, before August 2023) is not supported; convert the model "
              "again with a current llama.cpp");
  TORCH_CHECK(version == 2 || version == 3, file_context(path), ": header: unsupported GGUF version ", version,
              " (this reader reads versions 2 and 3)");
  return version;
}

uint64_t read_alignment(const std::string& path, const std::unordered_map<std::string, GgufValue>& metadata) {
  const auto found = metadata.find(kAlignmentKey);
  if (found == metadata.end()) return kDefaultAlignment;
  const auto* alignment = std::get_if<uint32_t>(&found->second.value);
  TORCH_CHECK(alignment != nullptr, file_context(path), ": metadata key '", kAlignmentKey,
              "': must be a uint32, got ", found->second.describe());
  TORCH_CHECK(*alignment != 0 && (*alignment & (*alignment - 1)) == 0, file_context(path), ": metadata key '",
              kAlignmentKey, "': must be a power of two, got ", *alignment);
  return *alignment;
}

// One entry of the tensor table, its size derived from its dimensions and type.
GgufTensorInfo read_tensor_info(GgufCursor& cursor, const std::string& path, uint64_t index) {
  GgufTensorInfo info;
  info.name = cursor.string(fmt::format("tensor #{}: name", index));
  const std::string field = fmt::format("tensor '{}'", info.name);
  const auto dimensions = cursor.scalar<uint32_t>(field + ": dimension count");
  TORCH_CHECK(dimensions <= kMaxDimensions, file_context(path), ": ", field, ": ", dimensions,
              " dimensions; ggml tensors have at most ", kMaxDimensions);
  std::vector<uint64_t> ne(dimensions);
  for (uint32_t d = 0; d < dimensions; ++d) ne[d] = cursor.scalar<uint64_t>(fmt::format("{}: ne[{}]", field, d));
  const auto code = cursor.scalar<uint32_t>(field + ": type");
  const auto type = ggml_type_from_code(code);
  TORCH_CHECK(type.has_value(), file_context(path), ": ", field, ": unknown ggml type ", code);
  info.type = *type;
  info.offset = cursor.scalar<uint64_t>(field + ": offset");

  // Elements and bytes must fit int64 (torch's sizes). The product skips zeros, so that rows() of a tensor
  // with no elements cannot overflow either.
  uint64_t nonzero_product = 1;
  bool empty = false;
  for (uint32_t d = 0; d < dimensions; ++d) {
    empty = empty || ne[d] == 0;
    TORCH_CHECK(ne[d] <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) &&
                    !__builtin_mul_overflow(nonzero_product, std::max<uint64_t>(ne[d], 1), &nonzero_product) &&
                    nonzero_product <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()),
                file_context(path), ": ", field, ": dimensions ne = ", fmt::format("[{}]", fmt::join(ne, ", ")),
                " overflow a 64-bit element count");
  }
  const uint64_t elements = empty ? 0 : nonzero_product;
  const auto block_size = static_cast<uint64_t>(ggml_block_size(info.type));
  const uint64_t columns = dimensions == 0 ? 1 : ne[0];
  TORCH_CHECK(columns % block_size == 0, file_context(path), ": ", field, ": ne[0] = ", columns,
              " is not a whole number of ", to_string(info.type), " blocks of ", block_size, " elements");
  TORCH_CHECK(!__builtin_mul_overflow(elements / block_size, static_cast<uint64_t>(ggml_type_size(info.type)),
                                      &info.bytes),
              file_context(path), ": ", field, ": its size in bytes overflows 64 bits");
  for (uint32_t d = dimensions; d-- > 0;) info.shape.push_back(static_cast<int64_t>(ne[d]));
  return info;
}

// Each tensor aligned, inside the data section and clear of every other one.
void check_tensor_layout(const std::string& path, const std::vector<GgufTensorInfo>& tensors, uint64_t alignment,
                         uint64_t data_size) {
  std::vector<const GgufTensorInfo*> by_offset;
  for (const auto& info : tensors) {
    const std::string field = fmt::format("tensor '{}'", info.name);
    TORCH_CHECK(info.offset % alignment == 0, file_context(path), ": ", field, ": offset ", info.offset,
                " is not a multiple of the alignment ", alignment);
    TORCH_CHECK(info.offset <= data_size && info.bytes <= data_size - info.offset, file_context(path), ": ", field,
                ": bytes [", info.offset, ", ", info.offset, " + ", info.bytes, ") run past the end of the data section (",
                data_size, " bytes): truncated or corrupt");
    if (info.bytes > 0) by_offset.push_back(&info);
  }
  std::sort(by_offset.begin(), by_offset.end(),
            [](const GgufTensorInfo* a, const GgufTensorInfo* b) { return a->offset < b->offset; });
  for (std::size_t i = 1; i < by_offset.size(); ++i) {
    const auto& before = *by_offset[i - 1];
    const auto& after = *by_offset[i];
    TORCH_CHECK(after.offset >= before.offset + before.bytes, file_context(path), ": tensor '", after.name,
                "': bytes from offset ", after.offset, " overlap tensor '", before.name, "' (offset ", before.offset,
                ", ", before.bytes, " bytes)");
  }
}

template <typename Wanted>
const Wanted& held_as(const std::string& path, const std::string& key, const GgufValue& value,
                      const char* wanted) {
  const auto* held = std::get_if<Wanted>(&value.value);
  TORCH_CHECK(held != nullptr, file_context(path), ": metadata key '", key, "': expected ", wanted, ", found ",
              value.describe());
  return *held;
}

bool is_integer(GgufValueType type) {
  return type <= GgufValueType::kInt32 || type == GgufValueType::kUint64 || type == GgufValueType::kInt64;
}

bool is_real(GgufValueType type) { return type == GgufValueType::kFloat32 || type == GgufValueType::kFloat64; }

bool is_string(GgufValueType type) { return type == GgufValueType::kString; }

// A value of an integer type as int64; `key` names it when a uint64 does not fit.
int64_t integer_of(const std::string& path, const std::string& key, const GgufValue& value) {
  return std::visit(
      [&](const auto& held) -> int64_t {
        using Held = std::decay_t<decltype(held)>;
        if constexpr (std::is_same_v<Held, uint64_t>) {
          TORCH_CHECK(held <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()), file_context(path),
                      ": metadata key '", key, "': uint64 ", held, " does not fit an int64");
          return static_cast<int64_t>(held);
        } else if constexpr (std::is_integral_v<Held> && !std::is_same_v<Held, bool>) {
          return static_cast<int64_t>(held);
        } else {
          TORCH_CHECK(false, file_context(path), ": metadata key '", key, "': ", value.describe(), " is not an integer");
        }
      },
      value.value);
}

// A value of a float type as double.
double real_of(const GgufValue& value) {
  if (const auto* f = std::get_if<float>(&value.value)) return *f;
  return std::get<double>(value.value);
}

// The value of `key` through `convert`, when `accepts` its type (else an error saying it expected `wanted`).
template <typename Convert>
auto scalar_as(const std::string& path, const std::string& key, const GgufValue& value, const char* wanted,
               bool (*accepts)(GgufValueType), Convert convert) {
  TORCH_CHECK(accepts(value.type()), file_context(path), ": metadata key '", key, "': expected ", wanted, ", found ",
              value.describe());
  return convert(value);
}

// The elements of the array `key` through `convert`, when `accepts` their type (else an error saying it
// expected `wanted`).
template <typename Convert>
auto array_as(const std::string& path, const std::string& key, const GgufValue& value, const char* wanted,
              bool (*accepts)(GgufValueType), Convert convert) {
  const auto* array = std::get_if<GgufArray>(&value.value);
  TORCH_CHECK(array != nullptr && accepts(array->element_type), file_context(path), ": metadata key '", key,
              "': expected ", wanted, ", found ", value.describe());
  std::vector<std::decay_t<decltype(convert(value))>> converted;
  converted.reserve(array->elements.size());
  for (const auto& element : array->elements) converted.push_back(convert(element));
  return converted;
}

}  // namespace

int64_t GgufTensorInfo::columns() const { return shape.empty() ? 1 : shape.back(); }

int64_t GgufTensorInfo::rows() const {
  int64_t rows = 1;
  for (std::size_t d = 0; d + 1 < shape.size(); ++d) rows *= shape[d];
  return rows;
}

GgufFile::GgufFile(const std::string& path) : path_(path), mapping_(std::make_shared<MappedFile>(path, file_context(path))) {
  const uint64_t size = mapping_->size();
  TORCH_CHECK(size >= sizeof kMagic && std::memcmp(mapping_->data(), kMagic, sizeof kMagic) == 0, file_context(path),
              ": header: the file does not start with the magic 'GGUF' (not a GGUF file)");
  TORCH_CHECK(size >= kHeaderBytes, file_context(path), ": header: the file has ", size, " bytes, fewer than the ",
              kHeaderBytes, "-byte header (truncated)");
  GgufCursor cursor(path, mapping_->data(), size);
  cursor.scalar<uint32_t>("header: magic");
  version_ = read_version(cursor, path);
  const auto tensor_count = cursor.count("header: tensor count", kMinTensorEntryBytes);
  const auto metadata_count = cursor.count("header: metadata count", kMinMetadataEntryBytes);

  keys_.reserve(metadata_count);
  for (uint64_t i = 0; i < metadata_count; ++i) {
    auto key = cursor.string(fmt::format("metadata #{}: key", i));
    const std::string field = fmt::format("metadata key '{}'", key);
    const auto type = cursor.value_type(field + ": value type");
    auto value = cursor.value(type, field, 0);
    TORCH_CHECK(metadata_.emplace(key, std::move(value)).second, file_context(path), ": ", field,
                " appears more than once");
    keys_.push_back(std::move(key));
  }
  alignment_ = read_alignment(path, metadata_);

  tensors_.reserve(tensor_count);
  for (uint64_t i = 0; i < tensor_count; ++i) {
    auto info = read_tensor_info(cursor, path, i);
    TORCH_CHECK(tensor_index_.emplace(info.name, tensors_.size()).second, file_context(path), ": tensor '",
                info.name, "' appears more than once in the tensor table");
    tensors_.push_back(std::move(info));
  }

  // The data section starts at the next multiple of the alignment; a file without tensor data may end
  // before it. No overflow: the position is at most the file's size and the alignment below 2^32.
  data_offset_ = (cursor.position() + alignment_ - 1) / alignment_ * alignment_;
  check_tensor_layout(path, tensors_, alignment_, data_offset_ <= size ? size - data_offset_ : 0);
}

const GgufValue& GgufFile::value(const std::string& key) const {
  const auto found = metadata_.find(key);
  TORCH_CHECK(found != metadata_.end(), file_context(path_), ": metadata key '", key, "' is missing");
  return found->second;
}

const std::string& GgufFile::string(const std::string& key) const {
  return held_as<std::string>(path_, key, value(key), "a string");
}

int64_t GgufFile::integer(const std::string& key) const {
  return scalar_as(path_, key, value(key), "an integer", is_integer,
                   [&](const GgufValue& held) { return integer_of(path_, key, held); });
}

double GgufFile::real(const std::string& key) const {
  return scalar_as(path_, key, value(key), "a float32 or float64", is_real, real_of);
}

bool GgufFile::boolean(const std::string& key) const { return held_as<bool>(path_, key, value(key), "a bool"); }

std::vector<std::string> GgufFile::strings(const std::string& key) const {
  return array_as(path_, key, value(key), "an array of strings", is_string,
                  [](const GgufValue& element) { return std::get<std::string>(element.value); });
}

std::vector<int64_t> GgufFile::integers(const std::string& key) const {
  return array_as(path_, key, value(key), "an array of integers", is_integer,
                  [&](const GgufValue& element) { return integer_of(path_, key, element); });
}

std::vector<double> GgufFile::reals(const std::string& key) const {
  return array_as(path_, key, value(key), "an array of float32 or float64", is_real, real_of);
}

const GgufTensorInfo& GgufFile::tensor_info(const std::string& name) const {
  const auto found = tensor_index_.find(name);
  TORCH_CHECK(found != tensor_index_.end(), file_context(path_), ": no tensor '", name, "' in the file");
  return tensors_[found->second];
}

torch::Tensor GgufFile::raw_blocks(const std::string& name) const {
  const auto& info = tensor_info(name);
  const int64_t row_bytes = ggml_row_bytes(info.type, info.columns());
  if (info.bytes == 0) return torch::empty({info.rows(), row_bytes}, torch::kUInt8);
  auto keep_alive = mapping_;
  return torch::from_blob(
      mapping_->data() + data_offset_ + info.offset, {info.rows(), row_bytes}, [keep_alive](void*) {},
      torch::kUInt8);
}

torch::Tensor GgufFile::dequantize(const std::string& name) const {
  const auto& info = tensor_info(name);
  TORCH_CHECK(ggml_type_dequantizable(info.type), file_context(path_), ": tensor '", name, "': cannot dequantise ",
              to_string(info.type), " (the suite dequantises F32, F16, BF16, Q8_0, Q4_0 and Q4_1)");
  return dequantize_blocks(raw_blocks(name), info.type, info.columns()).view(info.shape);
}

}  // namespace capaboost
