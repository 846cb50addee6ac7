// CEL (Common Expression Language) for DeviceClass and ResourceClaim device
// selectors, as Kubernetes' DRA CEL environment offers it
// (dynamic-resource-allocation/cel over apiserver/pkg/cel/environment's base
// set), with an interpreter of our own: the text is parsed to an AST and
// type-checked once by Compile, and evaluated by walking the AST.
//
// The `device` variable: device.driver (string), device.attributes and
// device.capacity (maps by domain of maps by name; a bare attribute name is
// in the driver's domain; device.attributes["<unknown domain>"] is an empty
// map, as Kubernetes' mapper returns), device.allowMultipleAllocations.
// Attribute values are int, bool, string or Semver; capacities Quantity.
//
// Supported: literals (int, uint, double, string, bytes, raw and
// triple-quoted strings, null, lists, maps); + - * / % with CEL's overflow
// and division errors; == != (heterogeneous, numeric across int, uint and
// double) and < <= > >= (cross-type numeric); `in` on lists and maps; !, &&,
// || (commutative: false && error is false), ?:; indexing, field selection,
// optional selection `.?f` and `[?k]`; macros has, all, exists,
// exists_one/existsOne, map (2 and 3 arguments), filter, the two-variable
// forms (all, exists, existsOne, transformList, transformMap), cel.bind,
// optMap, optFlatMap; size, int, uint, double, string, bool, bytes, dyn,
// type; contains, startsWith, endsWith, matches (RE2, as Go's regexp); the
// ext strings (version 2): charAt, indexOf, lastIndexOf, lowerAscii,
// upperAscii, replace, split, substring, trim, join, strings.quote;
// Kubernetes' regex (find, findAll), lists (isSorted, sum, min, max,
// indexOf, lastIndexOf), quantity (quantity, isQuantity, sign, isInteger,
// asInteger, asApproximateFloat, add, sub, mul, isGreaterThan, isLessThan,
// compareTo; exact, never floating point except asApproximateFloat) and
// semver (semver, isSemver, with the normalizing forms, major, minor,
// patch, isGreaterThan, isLessThan, compareTo) libraries; sets
// (sets.contains, sets.equivalent, sets.intersects); optional types
// (optional.of, optional.ofNonZeroValue, optional.none, hasValue, value,
// orValue, or, first, last, `[?x]` and `{?k: v}` entries).
// Not offered (a compile error, "undeclared reference"): the IP, CIDR, URL,
// format, image and authz libraries, quantity div and divInt, durations and
// timestamps, message construction.
//
// Compile errors follow cel-go: "compilation failed: ERROR: <input>:L:C:
// <message>" (1-based line and column, without cel-go's source snippet),
// e.g. undeclared references, no matching overload for the argument types
// known at compile time, mixed list literals, a literal pattern that is not
// a regular expression; a result that cannot be a bool is "must evaluate to
// bool or the unknown type, not <type>". Parsing nests at most 64 levels
// (parentheses, calls, unary operators) and the AST at most 250.
//
// Evaluation follows CEL: a missing key is "no such key: model"; errors
// propagate except where && / || / all / exists decide without them;
// a non-bool result is an error, as is a version attribute that does not
// parse (DeviceMatches converts every attribute first). Evaluation is
// deterministic (maps of the device iterate in key order) and bounded: a
// cost above 1,000,000 units (DRA's CELSelectorExpressionMaxCost; one unit
// per evaluated node and per comprehension step, plus string and list
// sizes) is the error "operation cancelled: actual cost limit exceeded".
// Matches() reads an error as "no match"; Evaluate() reports it, for callers
// that (like Kueue's quota pre-check) refuse on a CEL runtime error.
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
  // Compiles `text`. InvalidArgument with the compiler's message (what
  // Kueue reports as result.Error.Detail), e.g. `compilation failed: ERROR:
  // <input>:1:14: undeclared reference to 'foo' (in container '')`.
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
