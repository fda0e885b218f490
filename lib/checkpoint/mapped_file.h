#pragma once
// A whole checkpoint file mapped into memory, for the readers that hand out tensors viewing their bytes
// (safetensors.h, gguf_file.h). The mapping is private and writable: a tensor viewing it may be written
// to (copy-on-write) without touching the file, and pages are read lazily, so opening a large
// checkpoint is cheap. Readers hold it by shared_ptr, and so does every tensor that views it.
//
//   auto file = std::make_shared<MappedFile>(path, "safetensors file '" + path + "'");
//   const uint8_t* bytes = file->data();   // file->size() bytes

#include <cstdint>
#include <string>

namespace capaboost {

class MappedFile {
 public:
  /// Maps `path`; `context` begins every error message (it names the file and its format). An empty
  /// file maps to no bytes (data() is null).
  MappedFile(const std::string& path, const std::string& context);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  uint8_t* data() const { return static_cast<uint8_t*>(address_); }
  uint64_t size() const { return size_; }

 private:
  void* address_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace capaboost
