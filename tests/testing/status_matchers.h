// gMock matchers for absl::Status and absl::StatusOr (Debian's abseil ships
// none): EXPECT_THAT(s, IsOk()); EXPECT_THAT(s, StatusIs(code, HasSubstr("x"))).
#ifndef KUEUESIM_TESTING_STATUS_MATCHERS_H_
#define KUEUESIM_TESTING_STATUS_MATCHERS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"

namespace kueuesim::testing {

inline const absl::Status& GetStatus(const absl::Status& s) { return s; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& s) {
  return s.status();
}

MATCHER(IsOk, "is OK") {
  const absl::Status& status = GetStatus(arg);
  if (!status.ok()) *result_listener << "status: " << status.ToString();
  return status.ok();
}

// Matches a status (or StatusOr) with code `code` whose message matches
// `message_matcher` (a gMock matcher or a plain string for equality).
MATCHER_P2(StatusIs, code, message_matcher,
           std::string(negation ? "isn't" : "is") + " a status with code " +
               absl::StatusCodeToString(code) + " and a message that " +
               ::testing::DescribeMatcher<std::string>(message_matcher)) {
  const absl::Status& status = GetStatus(arg);
  *result_listener << "status: " << status.ToString();
  if (status.code() != code) return false;
  std::string message(status.message().data(), status.message().size());
  return ::testing::ExplainMatchResult(message_matcher, message, result_listener);
}

}  // namespace kueuesim::testing

#define KUEUESIM_ASSERT_OK_AND_ASSIGN(lhs, rexpr)                                   \
  KUEUESIM_ASSERT_OK_AND_ASSIGN_IMPL_(KUEUESIM_TESTING_CONCAT_(statusor_, __LINE__), \
                                      lhs, rexpr)
#define KUEUESIM_TESTING_CONCAT_INNER_(a, b) a##b
#define KUEUESIM_TESTING_CONCAT_(a, b) KUEUESIM_TESTING_CONCAT_INNER_(a, b)
#define KUEUESIM_ASSERT_OK_AND_ASSIGN_IMPL_(statusor, lhs, rexpr)   \
  auto statusor = (rexpr);                                          \
  ASSERT_TRUE(statusor.ok()) << statusor.status().ToString();       \
  lhs = std::move(statusor).value()

#endif  // KUEUESIM_TESTING_STATUS_MATCHERS_H_
