#include "util/atomic_file.h"

#include <c10/util/Exception.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

namespace capaboost {
namespace {

// The reason a write failed, with the fix when it is the disk's: a full disk or quota is the common one
// on shared cluster storage.
std::string failure(int error) {
  std::string reason = std::strerror(error);
  if (error == ENOSPC || error == EDQUOT || error == EFBIG) {
    reason += " (free space on that disk, or write elsewhere, then run again; the file was left as it was)";
  }
  return reason;
}

// Closes the descriptor and removes the temporary file unless the write was committed.
class TemporaryFile {
 public:
  TemporaryFile(std::string temp_path, std::string final_path)
      : temp_path_(std::move(temp_path)), final_path_(std::move(final_path)) {
    fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    TORCH_CHECK(fd_ >= 0, "writing '", final_path_, "': cannot create temporary file '", temp_path_,
                "': ", failure(errno));
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(temp_path_.c_str());
  }

  void write(const void* data, std::size_t size) {
    const char* bytes = static_cast<const char*>(data);
    while (size > 0) {
      const ssize_t written = ::write(fd_, bytes, size);
      if (written < 0 && errno == EINTR) continue;
      TORCH_CHECK(written > 0, "writing '", final_path_, "': ", failure(errno));
      bytes += written;
      size -= static_cast<std::size_t>(written);
    }
  }

  void commit() {
    // fsync before rename: otherwise a crash can leave the new name pointing at unwritten blocks.
    TORCH_CHECK(::fsync(fd_) == 0, "writing '", final_path_, "': fsync failed: ", failure(errno));
    TORCH_CHECK(::close(fd_) == 0, "writing '", final_path_, "': close failed: ", failure(errno));
    fd_ = -1;
    TORCH_CHECK(::rename(temp_path_.c_str(), final_path_.c_str()) == 0, "writing '", final_path_,
                "': cannot rename the temporary file over it: ", std::strerror(errno));
    committed_ = true;
    // Persist the directory entry too; failure here cannot un-commit the file, so it is not fatal.
    const auto directory = std::filesystem::path(final_path_).parent_path();
    const int dir_fd =
        ::open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd >= 0) {
      ::fsync(dir_fd);
      ::close(dir_fd);
    }
  }

 private:
  std::string temp_path_;
  std::string final_path_;
  int fd_ = -1;
  bool committed_ = false;
};

std::string temporary_name(const std::string& path) {
  // pid + per-process counter: concurrent writers (processes or threads) never share a temp file.
  static std::atomic<unsigned> counter{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

}  // namespace

void write_file_atomically(const std::string& path, const std::function<void(const ByteSink&)>& produce) {
  TemporaryFile file(temporary_name(path), path);
  produce([&](const void* data, std::size_t size) { file.write(data, size); });
  file.commit();
}

void write_file_atomically(const std::string& path, const std::string& content) {
  write_file_atomically(path, [&](const ByteSink& sink) { sink(content.data(), content.size()); });
}

}  // namespace capaboost
