// The subset of CEL (Common Expression Language) that DeviceClass and
// ResourceClaim selectors use in practice, compiled once and evaluated
// against a device.
//
// Supported: `device.driver`, `device.attributes["<domain>"].<name>` (and
// `device.attributes["<domain>"]["<name>"]`), `device.capacity["<domain>"]
// .<name>`, `device.allowMultipleAllocations`; string, int and bool
// literals; `quantity("80Gi")`; `==`, `!=`, `<`, `<=`, `>`, `>=` on ints
// and strings; `x.compareTo(quantity(q)) <op> 0` and `x.isGreaterThan(q)`,
// `x.isLessThan(q)` on quantities; `in [..]` on lists of literals; `&&`,
// `||`, `!` and parentheses. A missing attribute makes a comparison false
// (as a CEL runtime error makes a selector not match). Anything else is a
// compile error naming the position, never a silent match.
#ifndef KUEUESIM_DRA_CEL_H_
#define KUEUESIM_DRA_CEL_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "kueuesim/model/objects.h"

namespace kueuesim::dra {

class CelExpression {
 public:
  // Compiles `text`. InvalidArgument with the column of the problem, e.g.
  // `column 14: unsupported function "matches"`.
  static absl::StatusOr<CelExpression> Compile(std::string_view text);

  CelExpression(CelExpression&&) noexcept;
  CelExpression& operator=(CelExpression&&) noexcept;
  ~CelExpression();

  // Evaluates against a device published by `driver`.
  bool Matches(const std::string& driver, const model::Device& device) const;
  const std::string& text() const;

 private:
  struct Impl;
  explicit CelExpression(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kueuesim::dra

#endif  // KUEUESIM_DRA_CEL_H_
