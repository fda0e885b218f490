#include "checkpoint/mapped_file.h"

#include <c10/util/Exception.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace capaboost {

MappedFile::MappedFile(const std::string& path, const std::string& context) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  TORCH_CHECK(fd >= 0, context, ": cannot open: ", std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    TORCH_CHECK(false, context, ": cannot stat: ", std::strerror(error));
  }
  size_ = static_cast<uint64_t>(info.st_size);
  if (size_ == 0) {  // mmap refuses a length of 0
    ::close(fd);
    return;
  }
  void* address = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  const int map_error = errno;
  ::close(fd);
  TORCH_CHECK(address != MAP_FAILED, context, ": cannot map: ", std::strerror(map_error));
  address_ = address;
}

MappedFile::~MappedFile() {
  if (address_ != nullptr) ::munmap(address_, size_);
}

}  // namespace capaboost
