// InputBuffer: a file (or an in-memory text) read through a fixed-size
// buffer, with byte offsets and seeking, so that trace readers never hold a
// whole large file. A regular file of at most kWholeFileLimit bytes is read
// once, whole, at OpenFile, and then read in place (no buffer, no copy, a
// seek only moves). Otherwise the buffer is `capacity` bytes (64 KiB by
// default); after a seek, reads start small (4 KiB) and double up to the
// capacity, so that random access to short records (the sorted pass of an
// unsorted trace) does not copy a full buffer per record.
#ifndef KUEUESIM_TRACE_INPUT_BUFFER_H_
#define KUEUESIM_TRACE_INPUT_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kueuesim::trace::internal {

class InputBuffer {
 public:
  static constexpr size_t kDefaultCapacity = 64 * 1024;
  static constexpr size_t kInitialReadAfterSeek = 4 * 1024;
  // Regular files up to this size are read whole at OpenFile; larger ones
  // through the buffer, so that memory stays flat in the trace's length.
  static constexpr size_t kWholeFileLimit = 64 * 1024 * 1024;

  // Opens `path` for reading. NotFound / PermissionDenied / InvalidArgument
  // (a directory) name the path.
  static absl::StatusOr<std::unique_ptr<InputBuffer>> OpenFile(const std::string& path,
                                                               size_t capacity = kDefaultCapacity);
  // Reads from `text`; `name` stands for the file name in messages.
  static std::unique_ptr<InputBuffer> FromString(std::string text, std::string name,
                                                 size_t capacity = kDefaultCapacity);

  ~InputBuffer();
  InputBuffer(const InputBuffer&) = delete;
  InputBuffer& operator=(const InputBuffer&) = delete;

  const std::string& name() const { return name_; }

  // The next byte (0..255) without consuming it, or -1 at the end or after a
  // read error (see status()).
  int Peek() {
    if (pos_ < end_) return static_cast<unsigned char>(data_[pos_]);
    return Refill() ? static_cast<unsigned char>(data_[pos_]) : -1;
  }
  // The next byte, consumed; -1 at the end or after a read error.
  int Get() {
    if (pos_ >= end_ && !Refill()) return -1;
    return static_cast<unsigned char>(data_[pos_++]);
  }
  // The bytes already in memory from the next one on (possibly none, at the
  // end of the buffer: then Peek() refills it), without consuming them; for
  // readers that scan a run of bytes at once. Skip(n) consumes n of them.
  std::string_view Buffered() const { return std::string_view(data_ + pos_, end_ - pos_); }
  void Skip(size_t n) { pos_ += n; }
  // Byte offset of the next byte.
  int64_t offset() const { return buffer_start_ + static_cast<int64_t>(pos_); }

  // Moves to byte `offset` (0 <= offset <= file size).
  absl::Status Seek(int64_t offset);
  // OK, or the first read error.
  const absl::Status& status() const { return status_; }

  // Reads `size` bytes at `offset` without moving the cursor (random
  // access); OutOfRange when the file is shorter.
  absl::StatusOr<std::string> ReadAt(int64_t offset, size_t size);

 private:
  InputBuffer(std::string name, int fd, std::string text, size_t capacity, bool whole = false);
  bool Refill();
  // Reads up to `size` bytes at `offset` into `out`; returns the count, or
  // -1 on error (status_ set).
  int64_t ReadRaw(int64_t offset, char* out, size_t size);

  std::string name_;
  int fd_ = -1;              // -1: in-memory text
  std::string text_;         // the in-memory text
  bool whole_ = false;       // text_ is the whole file, read in place (data_ = text_)
  std::vector<char> buffer_;
  const char* data_ = nullptr;  // the bytes read from: buffer_, or text_ when whole_
  size_t pos_ = 0;            // next byte in data_
  size_t end_ = 0;            // bytes valid in data_
  int64_t buffer_start_ = 0;  // file offset of data_[0]
  size_t next_read_ = kInitialReadAfterSeek;
  bool eof_ = false;
  absl::Status status_;
};

}  // namespace kueuesim::trace::internal

#endif  // KUEUESIM_TRACE_INPUT_BUFFER_H_
