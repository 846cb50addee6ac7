// Error handling conventions for kueuesim.
//
// Every fallible path (parsing, validation, import, I/O) returns absl::Status
// or absl::StatusOr<T>; messages carry the file, the object and the field
// path. A broken internal invariant is a bug: KUEUESIM_CHECK aborts with a
// message. No exception crosses a library API (the Python layer turns a
// Status into an exception).
//
// Debian's abseil (20220623) has no status macros, so they live here.
#ifndef KUEUESIM_BASE_STATUS_H_
#define KUEUESIM_BASE_STATUS_H_

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kueuesim {

// Status helpers taking std::string (Debian's abseil uses its own
// string_view, which std::string converts to implicitly).
inline absl::Status InvalidArgument(const std::string& message) {
  return absl::InvalidArgumentError(message);
}
inline absl::Status NotFound(const std::string& message) { return absl::NotFoundError(message); }
inline absl::Status FailedPrecondition(const std::string& message) {
  return absl::FailedPreconditionError(message);
}
inline absl::Status Internal(const std::string& message) { return absl::InternalError(message); }
inline absl::Status ResourceExhausted(const std::string& message) {
  return absl::ResourceExhaustedError(message);
}

// The message of a status as a std::string.
inline std::string StatusMessage(const absl::Status& status) {
  return std::string(status.message().data(), status.message().size());
}

// Returns `status` with `prefix` + ": " prepended to its message.
inline absl::Status Annotate(const absl::Status& status, const std::string& prefix) {
  if (status.ok()) return status;
  return absl::Status(status.code(), prefix + ": " + StatusMessage(status));
}

namespace internal {
[[noreturn]] void CheckFailed(const char* file, int line, const char* condition,
                              const std::string& message);
}  // namespace internal

}  // namespace kueuesim

#define KUEUESIM_STATUS_CONCAT_INNER_(a, b) a##b
#define KUEUESIM_STATUS_CONCAT_(a, b) KUEUESIM_STATUS_CONCAT_INNER_(a, b)

// Evaluates `expr` (an absl::Status); returns it from the enclosing function
// when it is not OK.
#define KUEUESIM_RETURN_IF_ERROR(expr)                                   \
  do {                                                                   \
    ::absl::Status kueuesim_status_ = (expr);                            \
    if (!kueuesim_status_.ok()) return kueuesim_status_;                 \
  } while (false)

// Evaluates `rexpr` (an absl::StatusOr<T>); on error returns its status,
// otherwise moves the value into `lhs` (which may be a declaration).
#define KUEUESIM_ASSIGN_OR_RETURN(lhs, rexpr) \
  KUEUESIM_ASSIGN_OR_RETURN_IMPL_(KUEUESIM_STATUS_CONCAT_(kueuesim_statusor_, __LINE__), lhs, rexpr)

#define KUEUESIM_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                    \
  if (!statusor.ok()) return statusor.status();               \
  lhs = std::move(statusor).value()

// Aborts with a message when `condition` is false. For invariants only:
// never for input errors.
#define KUEUESIM_CHECK(condition)                                                    \
  do {                                                                               \
    if (!(condition)) ::kueuesim::internal::CheckFailed(__FILE__, __LINE__, #condition, ""); \
  } while (false)

#define KUEUESIM_CHECK_MSG(condition, message)                                              \
  do {                                                                                      \
    if (!(condition)) ::kueuesim::internal::CheckFailed(__FILE__, __LINE__, #condition, (message)); \
  } while (false)

#endif  // KUEUESIM_BASE_STATUS_H_
