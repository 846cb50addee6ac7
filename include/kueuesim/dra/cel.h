// The subset of CEL (Common Expression Language) that DeviceClass and
// ResourceClaim selectors use in practice, compiled once and evaluated
// against a device.
//
// Supported: `device.driver`, `device.attributes["<domain>"].<name>` (and
// `device.attributes["<domain>"]["<name>"]`), `device.capacity["<domain>"]
// .<name>`, `device.allowMultipleAllocations`; string, int and bool
// literals; `quantity("80Gi")` and `semver("1.2.3")`; `==`, `!=`, `<`, `<=`,
// `>`, `>=` on ints, strings and bools (`==`/`!=` also on quantities and
// versions); `x.compareTo(y) <op> 0`, `x.isGreaterThan(y)`, `x.isLessThan(y)`
// on quantities and versions; `in [..]` on lists of literals; presence tests
// `"<name>" in device.attributes["<domain>"]` (or device.capacity) and
// `has(device.attributes["<domain>"].<name>)`; `&&`, `||`, `!`, parentheses
// and `//` comments. Anything else (other functions and macros, arithmetic,
// the conditional operator, doubles, bytes, null, maps, chained comparisons,
// nesting deeper than 64) is a compile error naming the position, never a
// silent match.
//
// Evaluation follows CEL: an attribute or capacity the device does not have
// is a runtime error ("no such key: model"), as is an ordering comparison of
// mismatched types; `&&` and `||` absorb errors when the other side decides
// (false && error == false, true || error == true). Matches() reads an error
// as "no match"; Evaluate() reports it, for callers that (like Kueue's quota
// pre-check and the scheduler) refuse on a CEL runtime error.
#ifndef KUEUESIM_DRA_CEL_H_
#define KUEUESIM_DRA_CEL_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "kueuesim/base/quantity.h"
#include "kueuesim/model/objects.h"

namespace kueuesim::dra {

// The outcome of evaluating a selector against a device.
struct CelResult {
  enum class Outcome { kFalse, kTrue, kError };
  Outcome outcome = Outcome::kFalse;
  std::string error;  // the CEL runtime error when kError
};

class CelExpression {
 public:
  // Compiles `text`. InvalidArgument with the column of the problem, e.g.
  // `column 14: unsupported function "matches"` (1-based; "line 2, column 3"
  // when the text spans several lines).
  static absl::StatusOr<CelExpression> Compile(std::string_view text);

  CelExpression(CelExpression&&) noexcept;
  CelExpression& operator=(CelExpression&&) noexcept;
  ~CelExpression();

  // Evaluates against a device published by `driver`; a runtime error is no
  // match.
  bool Matches(const std::string& driver, const model::Device& device) const;
  // As Matches, keeping a runtime error apart.
  CelResult Evaluate(const std::string& driver, const model::Device& device) const;
  const std::string& text() const;

 private:
  struct Impl;
  explicit CelExpression(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Compares two quantities exactly (no rounding, any exponent): -1, 0 or 1.
// Shared by the evaluator and the charger (requestPolicy rounding, max over
// devices), as resource.Quantity.Cmp.
int CompareQuantities(const Quantity& a, const Quantity& b);

}  // namespace kueuesim::dra

#endif  // KUEUESIM_DRA_CEL_H_
