// Buffered, seekable reading of trace files (POSIX pread).
#include "trace/input_buffer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "kueuesim/base/status.h"

namespace kueuesim::trace::internal {

absl::StatusOr<std::unique_ptr<InputBuffer>> InputBuffer::OpenFile(const std::string& path,
                                                                   size_t capacity) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    std::string message = fmt::format("{}: cannot open: {}", path, std::strerror(error));
    if (error == ENOENT) return NotFound(message);
    if (error == EACCES) return absl::PermissionDeniedError(message);
    return absl::UnavailableError(message);
  }
  struct stat info;
  if (::fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) {
    ::close(fd);
    return InvalidArgument(fmt::format("{}: is a directory, not a file", path));
  }
  // A file small enough is read once, whole: the sorted pass of an unsorted
  // trace then costs a copy per record instead of a system call.
  if (S_ISREG(info.st_mode) && info.st_size <= static_cast<off_t>(kWholeFileLimit)) {
    std::string text(static_cast<size_t>(info.st_size), '\0');
    size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const int error = errno;
        ::close(fd);
        return absl::DataLossError(fmt::format("{}: read error at byte {}: {}", path, done, std::strerror(error)));
      }
      if (n == 0) break;  // shorter than it was: read what is there
      done += static_cast<size_t>(n);
    }
    text.resize(done);
    ::close(fd);
    return std::unique_ptr<InputBuffer>(new InputBuffer(path, -1, std::move(text), capacity, true));
  }
  return std::unique_ptr<InputBuffer>(new InputBuffer(path, fd, std::string(), capacity));
}

std::unique_ptr<InputBuffer> InputBuffer::FromString(std::string text, std::string name,
                                                     size_t capacity) {
  return std::unique_ptr<InputBuffer>(new InputBuffer(std::move(name), -1, std::move(text), capacity));
}

InputBuffer::InputBuffer(std::string name, int fd, std::string text, size_t capacity, bool whole)
    : name_(std::move(name)), fd_(fd), text_(std::move(text)), whole_(whole) {
  if (whole_) {
    data_ = text_.data();
    end_ = text_.size();
  } else {
    buffer_.resize(std::max<size_t>(capacity, 16));
    data_ = buffer_.data();
  }
}

InputBuffer::~InputBuffer() {
  if (fd_ >= 0) ::close(fd_);
}

int64_t InputBuffer::ReadRaw(int64_t offset, char* out, size_t size) {
  if (fd_ < 0) {
    if (offset >= static_cast<int64_t>(text_.size())) return 0;
    const size_t n = std::min(size, text_.size() - static_cast<size_t>(offset));
    std::memcpy(out, text_.data() + offset, n);
    return static_cast<int64_t>(n);
  }
  while (true) {
    const ssize_t n = ::pread(fd_, out, size, static_cast<off_t>(offset));
    if (n >= 0) return n;
    if (errno == EINTR) continue;
    status_ = absl::DataLossError(fmt::format("{}: read error at byte {}: {}", name_, offset,
                                              std::strerror(errno)));
    return -1;
  }
}

bool InputBuffer::Refill() {
  if (whole_) {
    eof_ = true;
    return false;
  }
  if (eof_ || !status_.ok()) return false;
  buffer_start_ += static_cast<int64_t>(end_);
  pos_ = 0;
  end_ = 0;
  const size_t want = std::min(next_read_, buffer_.size());
  next_read_ = std::min(next_read_ * 2, buffer_.size());
  const int64_t n = ReadRaw(buffer_start_, buffer_.data(), want);
  if (n <= 0) {
    eof_ = n == 0;
    return false;
  }
  end_ = static_cast<size_t>(n);
  return true;
}

absl::Status InputBuffer::Seek(int64_t offset) {
  if (offset < 0) return Internal(fmt::format("{}: seek to negative offset {}", name_, offset));
  if (whole_) {
    // The file is in memory: move, up to its end.
    pos_ = std::min(static_cast<size_t>(offset), end_);
    eof_ = pos_ >= end_;
    return status_;
  }
  // Within the current buffer: just move.
  if (offset >= buffer_start_ && offset <= buffer_start_ + static_cast<int64_t>(end_)) {
    pos_ = static_cast<size_t>(offset - buffer_start_);
    if (pos_ < end_) eof_ = false;
    return status_;
  }
  buffer_start_ = offset;
  pos_ = 0;
  end_ = 0;
  eof_ = false;
  next_read_ = kInitialReadAfterSeek;
  return status_;
}

absl::StatusOr<std::string> InputBuffer::ReadAt(int64_t offset, size_t size) {
  std::string out(size, '\0');
  size_t done = 0;
  while (done < size) {
    const int64_t n = ReadRaw(offset + static_cast<int64_t>(done), out.data() + done, size - done);
    if (n < 0) return status_;
    if (n == 0) {
      return absl::OutOfRangeError(
          fmt::format("{}: file ended at byte {} (it changed while being read?)", name_,
                      offset + static_cast<int64_t>(done)));
    }
    done += static_cast<size_t>(n);
  }
  return out;
}

}  // namespace kueuesim::trace::internal
