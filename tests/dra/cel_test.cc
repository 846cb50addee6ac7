// Tests for kueuesim/dra/cel.h: the supported CEL subset, CEL's runtime
// error semantics, and the expressions that must be refused at compile time
// with their position.
#include "kueuesim/dra/cel.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace kueuesim::dra {
namespace {

using ::kueuesim::testing::StatusIs;
using ::testing::HasSubstr;

constexpr char kDriver[] = "gpu.example.com";

Quantity Q(const std::string& text) {
  auto q = ParseQuantity(text);
  EXPECT_TRUE(q.ok()) << text;
  return q.ok() ? *q : Quantity{};
}

model::DeviceAttribute StringAttr(const std::string& s) {
  model::DeviceAttribute a;
  a.type = model::DeviceAttribute::Type::kString;
  a.string_value = s;
  return a;
}
model::DeviceAttribute IntAttr(int64_t v) {
  model::DeviceAttribute a;
  a.type = model::DeviceAttribute::Type::kInt;
  a.int_value = v;
  return a;
}
model::DeviceAttribute BoolAttr(bool v) {
  model::DeviceAttribute a;
  a.type = model::DeviceAttribute::Type::kBool;
  a.bool_value = v;
  return a;
}
model::DeviceAttribute VersionAttr(const std::string& v) {
  model::DeviceAttribute a;
  a.type = model::DeviceAttribute::Type::kVersion;
  a.string_value = v;
  return a;
}

// An H100 published by gpu.example.com: model "H100", cores 132, mig true,
// driverVersion 1.2.3, memory 80Gi, vendor.example.com/family "hopper".
model::Device H100() {
  model::Device d;
  d.name = "gpu-0";
  d.attributes["gpu.example.com/model"] = StringAttr("H100");
  d.attributes["gpu.example.com/cores"] = IntAttr(132);
  d.attributes["gpu.example.com/mig"] = BoolAttr(true);
  d.attributes["gpu.example.com/driverVersion"] = VersionAttr("1.2.3");
  d.attributes["vendor.example.com/family"] = StringAttr("hopper");
  model::DeviceCapacity memory;
  memory.value = Q("80Gi");
  d.capacity["gpu.example.com/memory"] = memory;
  return d;
}

// Compiles `text` (which must compile) and matches it against `device`.
bool Match(const std::string& text, const model::Device& device, const std::string& driver = kDriver) {
  auto expr = CelExpression::Compile(text);
  EXPECT_TRUE(expr.ok()) << text << ": " << expr.status();
  if (!expr.ok()) return false;
  return expr->Matches(driver, device);
}

CelResult Eval(const std::string& text, const model::Device& device) {
  auto expr = CelExpression::Compile(text);
  EXPECT_TRUE(expr.ok()) << text << ": " << expr.status();
  if (!expr.ok()) return {};
  return expr->Evaluate(kDriver, device);
}

// The compile error of `text`, which must not compile.
std::string CompileError(const std::string& text) {
  auto expr = CelExpression::Compile(text);
  EXPECT_FALSE(expr.ok()) << text << " compiled";
  if (expr.ok()) return "";
  EXPECT_EQ(expr.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(expr.status().message());
}

// Setup: the H100 device, driver gpu.example.com. Expected: device.driver
// equals "gpu.example.com" (true), not "other.example.com" (false); with the
// device published by other.example.com the first is false.
TEST(CelTest, Driver) {
  model::Device d = H100();
  EXPECT_TRUE(Match("device.driver == \"gpu.example.com\"", d));
  EXPECT_TRUE(Match("device.driver == 'gpu.example.com'", d));
  EXPECT_FALSE(Match("device.driver == \"other.example.com\"", d));
  EXPECT_TRUE(Match("device.driver != \"other.example.com\"", d));
  EXPECT_FALSE(Match("device.driver == \"gpu.example.com\"", d, "other.example.com"));
}

// Setup: model "H100" under gpu.example.com, family "hopper" under another
// domain. Expected: field and index forms look up "<domain>/<name>"; the
// family is found only under vendor.example.com.
TEST(CelTest, StringAttributes) {
  model::Device d = H100();
  EXPECT_TRUE(Match("device.attributes[\"gpu.example.com\"].model == \"H100\"", d));
  EXPECT_TRUE(Match("device.attributes[\"gpu.example.com\"][\"model\"] == \"H100\"", d));
  EXPECT_FALSE(Match("device.attributes[\"gpu.example.com\"].model == \"A100\"", d));
  EXPECT_TRUE(Match("device.attributes[\"gpu.example.com\"].model != \"A100\"", d));
  EXPECT_TRUE(Match("device.attributes[\"gpu.example.com\"].model < \"I\"", d));
  EXPECT_TRUE(Match("device.attributes[\"vendor.example.com\"].family == \"hopper\"", d));
  EXPECT_FALSE(Match("device.attributes[\"gpu.example.com\"].family == \"hopper\"", d));
}

// Setup: cores 132. Expected: >= 128 true, > 132 false, <= 132 true,
// < 100 false, == 132 true, != 132 false, negative literal -1 < 132 true.
TEST(CelTest, IntAttributes) {
  model::Device d = H100();
  const std::string cores = "device.attributes[\"gpu.example.com\"].cores";
  EXPECT_TRUE(Match(cores + " >= 128", d));
  EXPECT_FALSE(Match(cores + " > 132", d));
  EXPECT_TRUE(Match(cores + " <= 132", d));
  EXPECT_FALSE(Match(cores + " < 100", d));
  EXPECT_TRUE(Match(cores + " == 132", d));
  EXPECT_FALSE(Match(cores + " != 132", d));
  EXPECT_TRUE(Match(cores + " > -1", d));
  EXPECT_TRUE(Match(cores + " == 0x84", d));
  // A string compared with an int is unequal (CEL heterogeneous equality).
  EXPECT_FALSE(Match("device.attributes[\"gpu.example.com\"].model == 132", d));
}

// Setup: mig true. Expected: == true, !mig false, mig && true true.
TEST(CelTest, BoolAttributes) {
  model::Device d = H100();
  EXPECT_TRUE(Match("device.attributes[\"gpu.example.com\"].mig == true", d));
  EXPECT_TRUE(Match("device.attributes[\"gpu.example.com\"].mig", d));
  EXPECT_FALSE(Match("!device.attributes[\"gpu.example.com\"].mig", d));
  EXPECT_FALSE(Match("device.allowMultipleAllocations", d));
  d.allow_multiple_allocations = true;
  EXPECT_TRUE(Match("device.allowMultipleAllocations", d));
}

// Setup: model "H100", cores 132. Expected: model in ["A100","H100"] true,
// in ["L4"] false, in [] false, cores in [64, 132] true, driver in a list.
TEST(CelTest, InList) {
  model::Device d = H100();
  EXPECT_TRUE(Match("device.attributes[\"gpu.example.com\"].model in [\"A100\", \"H100\"]", d));
  EXPECT_FALSE(Match("device.attributes[\"gpu.example.com\"].model in [\"L4\"]", d));
  EXPECT_FALSE(Match("device.attributes[\"gpu.example.com\"].model in []", d));
  EXPECT_TRUE(Match("device.attributes[\"gpu.example.com\"].cores in [64, 132,]", d));
  EXPECT_TRUE(Match("device.driver in ['a.example.com', 'gpu.example.com']", d));
  EXPECT_FALSE(Match("!(device.driver in ['a.example.com', 'gpu.example.com'])", d));
}

// Setup: capacity memory 80Gi = 85899345920 bytes. Expected:
// compareTo(80Gi) == 0 and >= 0; compareTo(81920Mi) == 0 (same value);
// 80Gi > 80G (80e9); isGreaterThan(85899345919) true, (85899345920) false;
// isLessThan(85899345921) true; 80Gi == quantity("85899345920").
TEST(CelTest, CapacityQuantities) {
  model::Device d = H100();
  const std::string mem = "device.capacity[\"gpu.example.com\"].memory";
  EXPECT_TRUE(Match(mem + ".compareTo(quantity(\"80Gi\")) >= 0", d));
  EXPECT_TRUE(Match(mem + ".compareTo(quantity(\"80Gi\")) == 0", d));
  EXPECT_TRUE(Match(mem + ".compareTo(quantity(\"81920Mi\")) == 0", d));
  EXPECT_TRUE(Match(mem + ".compareTo(quantity(\"80G\")) > 0", d));
  EXPECT_FALSE(Match(mem + ".compareTo(quantity(\"81Gi\")) >= 0", d));
  EXPECT_TRUE(Match(mem + ".compareTo(quantity(\"81Gi\")) < 0", d));
  EXPECT_TRUE(Match(mem + ".isGreaterThan(quantity(\"85899345919\"))", d));
  EXPECT_FALSE(Match(mem + ".isGreaterThan(quantity(\"85899345920\"))", d));
  EXPECT_TRUE(Match(mem + ".isLessThan(quantity(\"85899345921\"))", d));
  EXPECT_TRUE(Match(mem + " == quantity(\"85899345920\")", d));
  EXPECT_TRUE(Match("quantity(\"1.5\") == quantity(\"1500m\")", d));
}

// Setup: driverVersion 1.2.3. Expected: > 1.2.0, == 1.2.3, > 1.2.3-rc.1
// (a pre-release sorts first), < 1.10.0 (numeric, not lexical).
TEST(CelTest, VersionAttributes) {
  model::Device d = H100();
  const std::string v = "device.attributes[\"gpu.example.com\"].driverVersion";
  EXPECT_TRUE(Match(v + ".isGreaterThan(semver(\"1.2.0\"))", d));
  EXPECT_TRUE(Match(v + ".compareTo(semver(\"1.2.3\")) == 0", d));
  EXPECT_TRUE(Match(v + " == semver(\"1.2.3+build.7\")", d));
  EXPECT_TRUE(Match(v + ".isGreaterThan(semver(\"1.2.3-rc.1\"))", d));
  EXPECT_TRUE(Match(v + ".isLessThan(semver(\"1.10.0\"))", d));
  EXPECT_TRUE(Match("semver(\"1.0.0-alpha.1\").isLessThan(semver(\"1.0.0-alpha.beta\"))", d));
  // A version is not a string: equality with a string is false.
  EXPECT_FALSE(Match(v + " == \"1.2.3\"", d));
}

// Setup: model H100 (true), cores 132 (> 200 false). Expected: && and ||
// with CEL precedence (&& binds tighter), parentheses and ! change it.
TEST(CelTest, LogicalOperators) {
  model::Device d = H100();
  const std::string t = "device.attributes[\"gpu.example.com\"].model == \"H100\"";
  const std::string f = "device.attributes[\"gpu.example.com\"].cores > 200";
  EXPECT_FALSE(Match(t + " && " + f, d));
  EXPECT_TRUE(Match(t + " || " + f, d));
  EXPECT_TRUE(Match(t + " || " + f + " && " + f, d));  // t || (f && f)
  EXPECT_FALSE(Match("(" + t + " || " + f + ") && " + f, d));
  EXPECT_TRUE(Match("!(" + f + ")", d));
  EXPECT_TRUE(Match("!!(" + t + ")", d));
  EXPECT_TRUE(Match("true && !false", d));
}

// Setup: the H100 has no attribute "gpu.example.com/bogus". Expected:
// Matches is false for ==, != and !; Evaluate reports "no such key: bogus";
// || true and && false absorb the error (CEL commutative logic), || false
// and && true keep it.
TEST(CelTest, MissingAttributeIsFalseAndAnError) {
  model::Device d = H100();
  const std::string missing = "device.attributes[\"gpu.example.com\"].bogus";
  EXPECT_FALSE(Match(missing + " == 1", d));
  EXPECT_FALSE(Match(missing + " != 1", d));
  EXPECT_FALSE(Match("!(" + missing + " == 1)", d));
  EXPECT_FALSE(Match("device.attributes[\"nowhere.example.com\"].model == \"H100\"", d));
  EXPECT_FALSE(Match("device.capacity[\"gpu.example.com\"].cores.compareTo(quantity(\"1\")) > 0", d));

  CelResult r = Eval(missing + " == 1", d);
  EXPECT_EQ(r.outcome, CelResult::Outcome::kError);
  EXPECT_EQ(r.error, "no such key: bogus");
  EXPECT_EQ(Eval(missing + " == 1 || true", d).outcome, CelResult::Outcome::kTrue);
  EXPECT_EQ(Eval("true || " + missing + " == 1", d).outcome, CelResult::Outcome::kTrue);
  EXPECT_EQ(Eval(missing + " == 1 && false", d).outcome, CelResult::Outcome::kFalse);
  EXPECT_EQ(Eval(missing + " == 1 || false", d).outcome, CelResult::Outcome::kError);
  EXPECT_EQ(Eval(missing + " == 1 && true", d).outcome, CelResult::Outcome::kError);
  // Ordering an int against a string attribute is a runtime error too.
  EXPECT_EQ(Eval("device.attributes[\"gpu.example.com\"].model > 3", d).outcome, CelResult::Outcome::kError);
  // A non-bool result (a string attribute used as a condition).
  EXPECT_EQ(Eval("device.attributes[\"gpu.example.com\"].model", d).outcome, CelResult::Outcome::kError);
}

// Setup: model present, bogus absent, memory capacity present. Expected:
// has() and `"name" in device.attributes[domain]` test presence, so a
// guarded comparison on a device without the attribute is false, not an
// error.
TEST(CelTest, PresenceTests) {
  model::Device d = H100();
  EXPECT_TRUE(Match("has(device.attributes[\"gpu.example.com\"].model)", d));
  EXPECT_FALSE(Match("has(device.attributes[\"gpu.example.com\"].bogus)", d));
  EXPECT_TRUE(Match("\"model\" in device.attributes[\"gpu.example.com\"]", d));
  EXPECT_TRUE(Match("'memory' in device.capacity[\"gpu.example.com\"]", d));
  EXPECT_FALSE(Match("'memory' in device.attributes[\"gpu.example.com\"]", d));
  CelResult r = Eval(
      "'bogus' in device.attributes[\"gpu.example.com\"] && "
      "device.attributes[\"gpu.example.com\"].bogus == 1",
      d);
  EXPECT_EQ(r.outcome, CelResult::Outcome::kFalse);
}

// Setup: exact quantity comparisons. Expected: 1Gi == 1073741824,
// 1.5 == 1500m, 1e3 == 1k, -1 < 0 < 1m, -2 < -1, 1Ei > 1E, 1Ki < 1025,
// 1e-900 < 1e900, 1073741823.999999999999 < 1Gi, 999999999999999999999 <
// 1e21 (beyond int64, still exact).
TEST(CelTest, CompareQuantitiesIsExact) {
  EXPECT_EQ(CompareQuantities(Q("1Gi"), Q("1073741824")), 0);
  EXPECT_EQ(CompareQuantities(Q("1.5"), Q("1500m")), 0);
  EXPECT_EQ(CompareQuantities(Q("1e3"), Q("1k")), 0);
  EXPECT_EQ(CompareQuantities(Q("-1"), Q("0")), -1);
  EXPECT_EQ(CompareQuantities(Q("0"), Q("1m")), -1);
  EXPECT_EQ(CompareQuantities(Q("-2"), Q("-1")), -1);
  EXPECT_EQ(CompareQuantities(Q("1Ei"), Q("1E")), 1);
  EXPECT_EQ(CompareQuantities(Q("1Ki"), Q("1025")), -1);
  EXPECT_EQ(CompareQuantities(Q("1e-900"), Q("1e900")), -1);
  EXPECT_EQ(CompareQuantities(Q("1073741823.999999999999"), Q("1Gi")), -1);
  EXPECT_EQ(CompareQuantities(Q("999999999999999999999"), Q("1e21")), -1);
}

// Setup: an || chain of 20000 terms. Expected: compiles (the chain is flat,
// not nested) and evaluates to true on its last term.
TEST(CelTest, LongFlatChainsAreNotNesting) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "device.driver == \"d" + std::to_string(i) + ".example.com\" || ";
  text += "device.driver == \"gpu.example.com\"";
  EXPECT_TRUE(Match(text, H100()));
}

// Setup: expressions that Kubernetes' DRA CEL compiler (cel-go's parser and
// type checker over the base environment) refuses. Expected: cel-go's issue
// text, "compilation failed: ERROR: <input>:<line>:<column>: <message>",
// the column 1-based; a non-bool result is refused as DRA's compiler words it.
TEST(CelTest, RefusesWhatCelGoRefuses) {
  // "device.attributes["gpu.example.com"].model." is 43 characters.
  EXPECT_EQ(CompileError("device.attributes[\"gpu.example.com\"].model.matchez(\"H.*\")"),
            "compilation failed: ERROR: <input>:1:44: undeclared reference to 'matchez' (in container '')");
  EXPECT_EQ(CompileError("foo == 1"), "compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')");
  EXPECT_EQ(CompileError("size(device.driver, 1) > 3"),
            "compilation failed: ERROR: <input>:1:1: found no matching overload for 'size' applied to '(string, int)'");
  EXPECT_EQ(CompileError("device.driver == 1"),
            "compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(string, int)'");
  EXPECT_EQ(CompileError("1 == 1.0"),
            "compilation failed: ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, double)'");
  EXPECT_EQ(CompileError("\"x\" + 1 == \"x1\""),
            "compilation failed: ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(string, int)'");
  EXPECT_EQ(CompileError("1 < 2 < 3"),
            "compilation failed: ERROR: <input>:1:7: found no matching overload for '_<_' applied to '(bool, int)'");
  EXPECT_EQ(CompileError("device.driver == null"),
            "compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(string, "
            "null_type)'");
  EXPECT_EQ(CompileError("device.capacity[\"d\"].memory > quantity(\"1Gi\")"),
            "compilation failed: ERROR: <input>:1:29: found no matching overload for '_>_' applied to "
            "'(kubernetes.Quantity, kubernetes.Quantity)'");
  EXPECT_EQ(CompileError("device.capacity[\"d\"].memory.compareTo(semver(\"1.0.0\")) > 0"),
            "compilation failed: ERROR: <input>:1:29: found no matching overload for 'compareTo' applied to "
            "'kubernetes.Quantity.(kubernetes.Semver)'");
  EXPECT_EQ(CompileError("device.driver.startsWith(1)"),
            "compilation failed: ERROR: <input>:1:15: found no matching overload for 'startsWith' applied to "
            "'string.(int)'");
  EXPECT_EQ(CompileError("[1, \"a\"].size() > 0"),
            "compilation failed: ERROR: <input>:1:5: expected type 'int' but found 'string'");
  EXPECT_EQ(CompileError("5.all(x, true)"),
            "compilation failed: ERROR: <input>:1:1: expression of type 'int' cannot be range of a comprehension "
            "(must be list, map, or dynamic)");
  EXPECT_EQ(CompileError("device.name == \"gpu-0\""), "compilation failed: ERROR: <input>:1:8: undefined field 'name'");
  EXPECT_EQ(CompileError("device.attributes == 1"),
            "compilation failed: ERROR: <input>:1:19: found no matching overload for '_==_' applied to "
            "'(map(string, map(string, dyn)), int)'");
  EXPECT_EQ(CompileError("device.driver.x == 1"),
            "compilation failed: ERROR: <input>:1:15: type 'string' does not support field selection");
  // A literal pattern is checked at compile time (cel.ValidateRegexLiterals).
  EXPECT_EQ(CompileError("device.driver.matches(\"(\")"),
            "compilation failed: ERROR: <input>:1:23: invalid regular expression: error parsing regexp: missing ): (");
  EXPECT_EQ(CompileError("has(device.attributes[\"d\"])"), "compilation failed: ERROR: <input>:1:1: invalid argument to has() macro");
  EXPECT_EQ(CompileError("device.driver"), "must evaluate to bool or the unknown type, not string");
  EXPECT_EQ(CompileError("[true].map(x, x)"), "must evaluate to bool or the unknown type, not list(bool)");
  EXPECT_EQ(CompileError("device.capacity[\"d\"].memory"), "must evaluate to bool or the unknown type, not kubernetes.Quantity");
}

// Setup: what compiles but fails at evaluation. Expected: the runtime error
// of cel-go or of the Kubernetes library, never a crash.
TEST(CelTest, RuntimeErrors) {
  model::Device d = H100();
  auto error = [&](const std::string& text) {
    CelResult r = Eval(text, d);
    EXPECT_EQ(r.outcome, CelResult::Outcome::kError) << text;
    return r.error;
  };
  EXPECT_EQ(error("quantity(\"12x\").sign() == 1"),
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  EXPECT_EQ(error("semver(\"1.2\") == semver(\"1.2.0\")"), "invalid semantic version \"1.2\"");
  EXPECT_EQ(error("9223372036854775807 + 1 > 0"), "integer overflow");
  EXPECT_EQ(error("-9223372036854775808 - 1 < 0"), "integer overflow");
  EXPECT_EQ(error("2 * 4611686018427387904 > 0"), "integer overflow");
  EXPECT_EQ(error("1 / 0 == 1"), "division by zero");
  EXPECT_EQ(error("1 % 0 == 1"), "modulus by zero");
  EXPECT_EQ(error("0u - 1u == 0u"), "unsigned integer overflow");
  EXPECT_EQ(error("[1, 2][5] == 1"), "index out of range: 5");
  EXPECT_EQ(error("{\"a\": 1}[\"b\"] == 1"), "no such key: b");
  EXPECT_EQ(error("optional.none().value() == 1"), "optional.none() dereference");
  EXPECT_EQ(error("int(\"x\") == 1"), "type conversion error from 'string' to 'int'");
  EXPECT_EQ(error("int(1e19) == 1"), "integer overflow");
  EXPECT_EQ(error("\"abc\".substring(2, 1) == \"\""), "invalid substring range. start: 2, end: 1");
  EXPECT_EQ(error("\"abc\".charAt(4) == \"\""), "index out of range: 4");
  EXPECT_EQ(error("device.driver.matches(device.driver + \"(\")"),
            "error parsing regexp: missing ): gpu.example.com(");
  EXPECT_EQ(error("quantity(\"1.5\").asInteger() == 1"), "cannot convert value to integer");
  EXPECT_EQ(error("[].max() == 1"), "max called on empty list");
  EXPECT_EQ(error("device.attributes[\"gpu.example.com\"].model"),
            "CEL result of type string could not be converted to bool");
  EXPECT_EQ(error("dyn(1) < \"a\""), "no such overload");
  // A version attribute that does not parse fails every selector, as
  // DeviceMatches converts all attributes first.
  model::Device bad = d;
  bad.attributes["gpu.example.com/driverVersion"] = VersionAttr("1.2");
  auto expr = CelExpression::Compile("device.driver == \"gpu.example.com\"");
  ASSERT_TRUE(expr.ok());
  EXPECT_EQ(expr->Evaluate(kDriver, bad).outcome, CelResult::Outcome::kError);
}

// Setup: malformed text. Expected: unterminated strings name the opening
// quote; bad characters name themselves; a missing operand names the end.
TEST(CelTest, RefusesMalformedText) {
  const std::string p = "compilation failed: ERROR: <input>:";
  EXPECT_EQ(CompileError("device.driver == \"abc"), p + "1:18: unterminated string literal");
  EXPECT_EQ(CompileError("device.driver == 'abc\" "), p + "1:18: unterminated string literal");
  EXPECT_EQ(CompileError("device.driver # 1"), p + "1:15: unexpected character '#'");
  EXPECT_EQ(CompileError("device.driver = \"a\""), p + "1:15: unexpected character '=' (did you mean '=='?)");
  EXPECT_EQ(CompileError("true & false"), p + "1:6: unexpected character '&' (did you mean '&&'?)");
  EXPECT_EQ(CompileError("device.driver == \"a\\qb\""), p + "1:20: invalid escape sequence");
  EXPECT_EQ(CompileError("device.driver =="), p + "1:17: Syntax error: unexpected end of expression");
  EXPECT_EQ(CompileError(""), p + "1:1: Syntax error: unexpected end of expression");
  EXPECT_EQ(CompileError("true true"), p + "1:6: Syntax error: unexpected 'true'");
  EXPECT_EQ(CompileError("(true"), p + "1:6: Syntax error: expected ')', found end of expression");
  EXPECT_EQ(CompileError("device.driver == \"\xc3\xa9\" && \xc3\xa9"), p + "1:25: unexpected character '\\xc3'");
  EXPECT_EQ(CompileError("1 + if"), p + "1:5: Syntax error: reserved identifier: if");
  EXPECT_EQ(CompileError("99999999999999999999 > 1"), p + "1:1: integer literal out of range");
  // Several lines: line and column.
  EXPECT_EQ(CompileError("device.driver == \"a\" &&\n  sizes(device.driver) > 1"),
            p + "2:3: undeclared reference to 'sizes' (in container '')");
}

// Setup: 64 and 65 nested parentheses, 65 nested negations, an AST deeper
// than 250 (a chain of 300 additions), and comprehensions nested to a
// million steps. Expected: 64 compile; the others are refused as too deep
// at compile time; the runaway comprehension is a runtime error (Kubernetes'
// cost limit), not a hang.
TEST(CelTest, BoundsNestingAndCost) {
  auto nested = [](int n) {
    return std::string(static_cast<size_t>(n), '(') + "true" + std::string(static_cast<size_t>(n), ')');
  };
  EXPECT_TRUE(Match(nested(64), H100()));
  EXPECT_EQ(CompileError(nested(65)),
            "compilation failed: ERROR: <input>:1:66: expression nested too deeply (more than 64 levels)");
  EXPECT_THAT(CompileError(std::string(65, '!') + "true"), HasSubstr("nested too deeply"));
  EXPECT_THAT(CompileError(nested(100000)), HasSubstr("nested too deeply"));
  std::string sum = "1";
  for (int i = 0; i < 300; ++i) sum += " + 1";
  EXPECT_THAT(CompileError(sum + " > 0"), HasSubstr("nested too deeply (more than 250 levels)"));
  const std::string ten = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
  std::string runaway = "1";
  for (char v = 'a'; v <= 'f'; ++v) runaway = ten + ".map(" + std::string(1, v) + ", " + runaway + ")";
  CelResult r = Eval(runaway + ".size() == 10", H100());
  EXPECT_EQ(r.outcome, CelResult::Outcome::kError);
  EXPECT_EQ(r.error, "operation cancelled: actual cost limit exceeded");
  // || true does not absorb the cost limit.
  EXPECT_EQ(Eval(runaway + ".size() == 10 || true", H100()).outcome, CelResult::Outcome::kError);
  // Five levels (100000 steps) stay within it.
  std::string five = "1";
  for (char v = 'a'; v <= 'e'; ++v) five = ten + ".map(" + std::string(1, v) + ", " + five + ")";
  EXPECT_TRUE(Match(five + ".size() == 10", H100()));
}

// Setup: escapes, raw strings and comments. Expected: decoded as CEL does.
TEST(CelTest, StringsAndComments) {
  model::Device d = H100();
  d.attributes["gpu.example.com/model"] = StringAttr("H\"100\\x\xc3\xa9");
  EXPECT_TRUE(Match("device.attributes[\"gpu.example.com\"].model == \"H\\\"100\\\\x\\u00e9\"", d));
  EXPECT_TRUE(Match("'\\xe9' == '\\u00e9' && '\\351' == '\\U000000e9'", d));
  EXPECT_TRUE(Match("device.attributes[\"gpu.example.com\"].model == r'H\"100\\x\xc3\xa9'", d));
  EXPECT_TRUE(Match("// the driver\ndevice.driver == 'gpu.example.com' // trailing", d));
}

}  // namespace
}  // namespace kueuesim::dra
