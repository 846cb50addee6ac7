// Tests for kueuesim/dra/cel.h: the supported CEL subset, CEL's runtime
// error semantics, and the expressions that must be refused at compile time
// with their position.
#include "kueuesim/dra/cel.h"

#include <string>
#include <vector>

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

// Setup: list-typed attributes (DRAListTypeAttributes): numaNode ints
// [0, 1], pcieRoots strings, firmware versions. Expected: each is a CEL
// list: `in`, size(), exists() and indexing work on it; a version list
// holds semver values.
TEST(CelTest, ListTypedAttributes) {
  model::Device d = H100();
  model::DeviceAttribute numa;
  numa.type = model::DeviceAttribute::Type::kInt;
  numa.is_list = true;
  numa.int_values = {0, 1};
  d.attributes["resource.kubernetes.io/numaNode"] = numa;
  model::DeviceAttribute roots;
  roots.type = model::DeviceAttribute::Type::kString;
  roots.is_list = true;
  roots.string_values = {"pci0000:00", "pci0000:80"};
  d.attributes["gpu.example.com/pcieRoots"] = roots;
  model::DeviceAttribute firmware;
  firmware.type = model::DeviceAttribute::Type::kVersion;
  firmware.is_list = true;
  firmware.string_values = {"1.2.3", "2.0.0"};
  d.attributes["gpu.example.com/firmware"] = firmware;
  const std::string numa_node = "device.attributes[\"resource.kubernetes.io\"].numaNode";
  EXPECT_TRUE(Match("1 in " + numa_node, d));
  EXPECT_FALSE(Match("2 in " + numa_node, d));
  EXPECT_TRUE(Match("size(" + numa_node + ") == 2", d));
  EXPECT_TRUE(Match(numa_node + "[1] == 1", d));
  EXPECT_TRUE(Match("device.attributes[\"gpu.example.com\"].pcieRoots.exists(r, r.startsWith(\"pci0000:8\"))", d));
  EXPECT_TRUE(Match("device.attributes[\"gpu.example.com\"].firmware.all(v, v.isGreaterThan(semver(\"1.0.0\")))", d));
  EXPECT_FALSE(Match("device.attributes[\"gpu.example.com\"].firmware.all(v, v.major() >= 2)", d));
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

// Expressions that must compile and evaluate to true, on the H100.
void ExpectAllTrue(const std::vector<std::string>& cases) {
  model::Device d = H100();
  for (const std::string& text : cases) {
    auto expr = CelExpression::Compile(text);
    ASSERT_TRUE(expr.ok()) << text << ": " << expr.status();
    CelResult r = expr->Evaluate(kDriver, d);
    EXPECT_EQ(r.outcome, CelResult::Outcome::kTrue) << text << " " << r.error;
  }
}

// Setup: Kubernetes' quantity library cases (apiserver/pkg/cel/library
// quantity_test.go). Expected: their values, exactly; parse failures are
// runtime errors with resource.ParseQuantity's messages.
TEST(CelLibraryTest, Quantity) {
  ExpectAllTrue({
      "quantity(\"12Mi\") == quantity(\"12582912\")",
      "isQuantity(\"20\") && isQuantity(\"20M\") && isQuantity(\"20Mi\")",
      "!isQuantity(\"20Mo\") && !isQuantity(\"10Mm\")",
      "quantity(\"200M\") == quantity(\"200M\")",
      "quantity(\"200M\") == quantity(\"0.2G\") && quantity(\"0.2G\") == quantity(\"200M\")",
      "quantity(\"2M\") == quantity(\"0.002G\") && quantity(\"2000k\") == quantity(\"2M\") && "
      "quantity(\"0.002G\") == quantity(\"2000k\")",
      "!(quantity(\"200M\") == quantity(\"0.3G\"))",
      "quantity(\"50M\").isLessThan(quantity(\"50Mi\"))",
      "quantity(\"50M\").isLessThan(quantity(\"100M\"))",
      "!quantity(\"100M\").isLessThan(quantity(\"50M\"))",
      "quantity(\"50Mi\").isGreaterThan(quantity(\"50M\"))",
      "quantity(\"150Mi\").isGreaterThan(quantity(\"100Mi\"))",
      "!quantity(\"50M\").isGreaterThan(quantity(\"100M\"))",
      "quantity(\"200M\").compareTo(quantity(\"0.2G\")) == 0",
      "quantity(\"50M\").compareTo(quantity(\"50Mi\")) == -1",
      "quantity(\"50Mi\").compareTo(quantity(\"50M\")) == 1",
      "quantity(\"50k\").add(quantity(\"20\")) == quantity(\"50.02k\")",
      "!quantity(\"50k\").add(20).isLessThan(quantity(\"50020\"))",
      "quantity(\"50k\").sub(quantity(\"20\")) == quantity(\"49.98k\")",
      "quantity(\"50k\").sub(20) == quantity(\"49980\")",
      "quantity(\"50k\").mul(2) == quantity(\"100000\")",
      "quantity(\"50k\").add(20).sub(quantity(\"100k\")).asInteger() == -49980",
      "quantity(\"50k\").add(20).sub(quantity(\"100k\")).sub(-50000).asInteger() == 20",
      "quantity(\"50k\").asInteger() == 50000",
      "!quantity(\"9999999999999999999999999999999999999G\").isInteger()",
      "quantity(\"50\").isInteger()",
      "quantity(\"50.703k\").asApproximateFloat() == 50703.0",
      "quantity(\"-1.5\").sign() == -1 && quantity(\"0\").sign() == 0 && sign(quantity(\"1m\")) == 1",
      // Exact beyond int64 and across binary and decimal suffixes.
      "quantity(\"1Ei\").add(quantity(\"1Ei\")).sub(quantity(\"2Ei\")) == quantity(\"0\")",
      "quantity(\"1e-900\").add(quantity(\"1e900\")).isGreaterThan(quantity(\"1e900\"))",
      "quantity(\"1Ki\").mul(-3) == quantity(\"-3072\")",
      "quantity(\"1500m\").asApproximateFloat() == 1.5",
  });
  model::Device d = H100();
  EXPECT_EQ(Eval("quantity(\"10Mo\").sign() == 1", d).error,
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  EXPECT_EQ(Eval("quantity(\"10Mm\").sign() == 1", d).error, "unable to parse quantity's suffix");
  EXPECT_EQ(Eval("quantity(\"9999999999999999999999999999999999999G\").asInteger() == 1", d).error,
            "cannot convert value to integer");
  EXPECT_EQ(CompileError("isQuantity([1, 2, 3])"),
            "compilation failed: ERROR: <input>:1:1: found no matching overload for 'isQuantity' applied to "
            "'(list(int))'");
}

// Setup: Kubernetes' semver library cases (semverlib_test.go, version 1 with
// normalization). Expected: their values; a bad version is a runtime error.
TEST(CelLibraryTest, Semver) {
  ExpectAllTrue({
      "isSemver(\"1.0.0\") && !isSemver(\"v1.0\") && isSemver(\"v1.0\", true) && !isSemver(\"1.0.0\\u0000\")",
      "!isSemver(\"01.01.01\") && isSemver(\"01.01.01\", true) && !isSemver(\"1.0\") && isSemver(\"1.0\", true)",
      "semver(\"1.0.0\") == semver(\"1.0.0\") && semver(\"1.0.0\") != semver(\"1.0.1\")",
      "semver(\"1.0.0\").isLessThan(semver(\"1.0.1\")) && !semver(\"1.0.1\").isLessThan(semver(\"1.0.0\"))",
      "semver(\"1.0.1\").isGreaterThan(semver(\"1.0.0\"))",
      "semver(\"1.2.3\").compareTo(semver(\"1.2.3\")) == 0 && semver(\"1.2.3\").compareTo(semver(\"2.0.0\")) == -1 "
      "&& semver(\"1.2.3\").compareTo(semver(\"0.1.2\")) == 1",
      "semver(\"1.2.3\").major() == 1 && semver(\"1.2.3\").minor() == 2 && semver(\"1.2.3\").patch() == 3",
      "semver(\"v1.0\", true) == semver(\"1.0.0\") && semver(\"01.01.01\", true) == semver(\"1.1.1\")",
      "semver(\"1.0.0-alpha\").isLessThan(semver(\"1.0.0-alpha.1\")) && "
      "semver(\"1.0.0-rc.1\").isLessThan(semver(\"1.0.0\"))",
      "device.attributes[\"gpu.example.com\"].driverVersion.major() == 1",
  });
  EXPECT_EQ(Eval("semver(\"v1.0\") == semver(\"1.0.0\")", H100()).outcome, CelResult::Outcome::kError);
  EXPECT_EQ(Eval("semver(\"1.0-alpha\", true).major() == 1", H100()).outcome, CelResult::Outcome::kError);
}

// Setup: cel-go's ext strings (version 2) cases. Expected: their values,
// counting code points, not bytes.
TEST(CelLibraryTest, Strings) {
  ExpectAllTrue({
      "'tacocat'.charAt(3) == 'o' && 'tacocat'.charAt(7) == '' && '©αT'.charAt(0) == '©' && '©αT'.charAt(2) == 'T'",
      "'tacocat'.indexOf('') == 0 && 'tacocat'.indexOf('ac') == 1 && 'tacocat'.indexOf('none') == -1",
      "'tacocat'.indexOf('', 3) == 3 && 'tacocat'.indexOf('a', 3) == 5 && 'tacocat'.indexOf('at', 3) == 5",
      "'ta©o©αT'.indexOf('©') == 2 && 'ta©o©αT'.indexOf('©', 3) == 4 && 'ta©o©αT'.indexOf('©αT', 3) == 4",
      "'hello wello'.indexOf('hello wello') == 0 && 'hello wello'.indexOf('ello', 6) == 7",
      "'tacocat'.lastIndexOf('') == 7 && 'tacocat'.lastIndexOf('at') == 5 && 'tacocat'.lastIndexOf('none') == -1",
      "'tacocat'.lastIndexOf('', 3) == 3 && 'tacocat'.lastIndexOf('a', 3) == 1 && 'ta©o©αT'.lastIndexOf('©') == 4",
      "'hello wello'.lastIndexOf('ello', 6) == 1 && 'hello wello'.lastIndexOf('low') == -1",
      "'TacoCat'.lowerAscii() == 'tacocat' && 'TacoCÆt Xii'.lowerAscii() == 'tacocÆt xii'",
      "'tacoCat'.upperAscii() == 'TACOCAT' && 'tacoCαt'.upperAscii() == 'TACOCαT'",
      "'12 days 12 hours'.replace('{0}', '2') == '12 days 12 hours'",
      "'{0} days {0} hours'.replace('{0}', '2') == '2 days 2 hours'",
      "'{0} days {0} hours'.replace('{0}', '2', 1).replace('{0}', '23') == '2 days 23 hours'",
      "'1 ©αT taco'.replace('αT', 'o©α') == '1 ©o©α taco'",
      "'hello hello'.split(' ') == ['hello', 'hello'] && 'hello hello hello'.split(' ', 0) == []",
      "'hello hello hello'.split(' ', 1) == ['hello hello hello'] && "
      "'hello hello hello'.split(' ', 2) == ['hello', 'hello hello']",
      "'hello hello hello'.split(' ', -1) == ['hello', 'hello', 'hello'] && 'hello'.split('') == ['h','e','l','l','o']",
      "'tacocat'.substring(4) == 'cat' && 'tacocat'.substring(0, 4) == 'taco' && 'ta©o©αT'.substring(2, 6) == '©o©α'",
      "'tacocat'.substring(7) == ''",
      "' \\f\\n\\r\\t\\vtext  '.trim() == 'text' && '\\u0085\\u00a0\\u1680text'.trim() == 'text'",
      "['x', 'y'].join() == 'xy' && ['x', 'y'].join('-') == 'x-y' && [].join() == '' && [].join('-') == ''",
      "strings.quote('first\\nsecond') == '\"first\\\\nsecond\"' && strings.quote('☺') == '\"☺\"'",
      "'hello'.contains('ell') && 'hello'.startsWith('he') && 'hello'.endsWith('llo') && !'hello'.endsWith('x')",
      "size('ta©o') == 4 && 'ta©o'.size() == 4 && size(b'ta') == 2",
  });
  model::Device d = H100();
  EXPECT_EQ(Eval("'tacocat'.charAt(30) == ''", d).error, "index out of range: 30");
  EXPECT_EQ(Eval("'tacocat'.indexOf('a', 30) == -1", d).error, "index out of range: 30");
  EXPECT_EQ(Eval("'tacocat'.lastIndexOf('a', -1) == -1", d).error, "index out of range: -1");
  EXPECT_EQ(Eval("'tacocat'.substring(40) == 'cat'", d).error, "index out of range: 40");
  EXPECT_EQ(Eval("'tacocat'.substring(-1) == 'cat'", d).error, "index out of range: -1");
  EXPECT_EQ(Eval("'tacocat'.substring(1, 50) == 'cat'", d).error, "index out of range: 50");
  EXPECT_EQ(Eval("'tacocat'.substring(49, 50) == 'cat'", d).error, "index out of range: 49");
  EXPECT_EQ(Eval("'tacocat'.substring(4, 3) == ''", d).error, "invalid substring range. start: 4, end: 3");
}

// Setup: regular expressions with RE2's (Go's regexp) semantics: matches()
// finds a match anywhere; Kubernetes' find() and findAll(). Expected: as Go.
TEST(CelLibraryTest, Regex) {
  ExpectAllTrue({
      "'hubba'.matches('ubb') && !'hubba'.matches('^ubb') && matches('hubba', 'a$')",
      "'abc 123'.find('[0-9]+') == '123' && 'abc'.find('[0-9]+') == ''",
      "'123 abc 456'.findAll('[0-9]+') == ['123', '456'] && '123 abc 456'.findAll('[0-9]+', 1) == ['123']",
      "'123 abc 456'.findAll('xyz') == [] && 'abc'.findAll('') == ['', '', '', '']",
      "'aaa'.findAll('a*') == ['aaa']",
      // RE2: (?i) flags; Unicode classes.
      "'NVIDIA A100-SXM4-80GB'.matches('(?i)^nvidia a100')",
      "'ÀB'.matches('^\\\\p{Lu}+$')",
  });
  // No backreferences in RE2.
  EXPECT_THAT(CompileError("'aa'.matches('(a)\\\\1')"), HasSubstr("invalid regular expression"));
}

// Setup: Kubernetes' lists library and cel-go's sets (lists_test.go,
// sets_test.go). Expected: their values; min/max of an empty list fail.
TEST(CelLibraryTest, ListsAndSets) {
  ExpectAllTrue({
      "[].isSorted() && [1.0, 2.0, 3.0].isSorted() && ['a', 'b', 'c'].isSorted() && ![2, 1].isSorted()",
      "[1, 2, 3].sum() == 6 && [1.0, 2.0].sum() == 3.0 && [1u, 2u].sum() == 3u && [].sum() == 0",
      "[1, 2, 3].min() == 1 && [3.0, 1.5].min() == 1.5 && ['b', 'a'].min() == 'a' && [1, 2, 3].max() == 3",
      "[1, 2, 3, 2].indexOf(2) == 1 && [1, 2, 3, 2].lastIndexOf(2) == 3 && [1, 2].indexOf(5) == -1",
      "['a', 'b'].indexOf('b') == 1 && [[1], [2]].indexOf([2]) == 1",
      "sets.contains([], []) && sets.contains([1], []) && sets.contains([1, 2, 3], [3, 2]) && !sets.contains([1], [2])",
      "sets.contains([1, 2], [dyn(2.0), dyn(1u)])",
      "sets.equivalent([], []) && sets.equivalent([1], [1, 1]) && sets.equivalent([1, 2], [2, 1]) && "
      "!sets.equivalent([1, 2], [1])",
      "sets.intersects([1], [1, 2]) && !sets.intersects([1], []) && !sets.intersects([1, 2], [3])",
      "[1, 2] + [3] == [1, 2, 3] && 2 in [1, 2] && !(4 in [1, 2]) && [1, 2][1] == 2 && size([1, 2]) == 2",
  });
  EXPECT_EQ(Eval("[].min() == 1", H100()).error, "min called on empty list");
  EXPECT_EQ(Eval("[9223372036854775807, 1].sum() > 0", H100()).error, "integer overflow");
}

// Setup: optional types (cel.OptionalTypes): optional.of/none, .?field,
// [?index], orValue, or, hasValue, value, optMap, optional list and map
// entries, first/last. Expected: as cel-go.
TEST(CelLibraryTest, OptionalTypes) {
  ExpectAllTrue({
      "optional.of(1).hasValue() && !optional.none().hasValue() && optional.of(1).value() == 1",
      "optional.none().orValue(2) == 2 && optional.of(1).orValue(2) == 1",
      "optional.none().or(optional.of(3)) == optional.of(3) && optional.of(1).or(optional.of(3)).value() == 1",
      "{'a': 1}.?a == optional.of(1) && {'a': 1}.?b == optional.none() && {'a': 1}[?'b'].orValue(5) == 5",
      "[1, 2][?1] == optional.of(2) && [1, 2][?5] == optional.none()",
      "{'a': {'b': 1}}.?a.b == optional.of(1) && {'a': {'b': 1}}.?x.b == optional.none()",
      "optional.ofNonZeroValue(0) == optional.none() && optional.ofNonZeroValue('a').hasValue()",
      "[?optional.none(), ?optional.of(1), 2] == [1, 2] && {?'a': optional.none(), 'b': 1} == {'b': 1}",
      "optional.of(2).optMap(x, x * 2) == optional.of(4) && optional.none().optMap(x, x * 2) == optional.none()",
      "optional.of(2).optFlatMap(x, optional.of(x + 1)).value() == 3",
      "[1, 2].first() == optional.of(1) && [1, 2].last().value() == 2 && [].first() == optional.none()",
      "device.attributes[\"gpu.example.com\"].?model.orValue(\"\") == \"H100\"",
      "device.attributes[\"dra.example.com\"].?model.orValue(\"\") == \"\"",
      "!device.attributes[\"gpu.example.com\"].?bogus.hasValue()",
  });
}

// Setup: the standard macros and operators: all/exists/exists_one/map/
// filter (one and two variables), cel.bind, the conditional operator,
// arithmetic, cross-type numeric comparison, `in` on maps, conversions.
// Expected: as CEL defines them.
TEST(CelLibraryTest, MacrosAndOperators) {
  ExpectAllTrue({
      "[1, 2, 3].all(x, x > 0) && ![1, 2, 3].all(x, x > 1) && [].all(x, false)",
      "[1, 2, 3].exists(x, x == 2) && ![].exists(x, true) && [1, 2, 3].exists_one(x, x > 2)",
      "![1, 2, 3].exists_one(x, x > 1) && [1, 2, 3].existsOne(x, x == 1)",
      "[1, 2, 3].map(x, x * 2) == [2, 4, 6] && [1, 2, 3].map(x, x > 1, x * 10) == [20, 30]",
      "[1, 2, 3].filter(x, x != 2) == [1, 3] && {'a': 1, 'b': 2}.filter(k, k != 'a') == ['b']",
      "{'a': 1, 'b': 2}.all(k, k in ['a', 'b']) && {'a': 1}.exists(k, v, v == 1)",
      "[10, 20].all(i, v, v == (i + 1) * 10) && [1, 2].transformList(i, v, i + v) == [1, 3]",
      "{'a': 1}.transformMap(k, v, v + 1) == {'a': 2} && [5].transformList(i, v, v > 9, v) == []",
      "cel.bind(x, 10, x * x) == 100 && cel.bind(a, 1, cel.bind(b, a + 1, a + b)) == 3",
      "(1 > 0 ? 'yes' : 'no') == 'yes' && (false ? 1 : 2) == 2",
      "7 / 2 == 3 && -7 / 2 == -3 && 7 % 3 == 1 && -7 % 3 == -1 && 2.0 * 1.5 == 3.0 && 5u / 2u == 2u",
      "1 < 1.5 && 2u > 1 && 1.0 <= 1 && -1 < 0u && 9223372036854775807 < 18446744073709551615u",
      "dyn(1) == 1.0 && dyn(1u) == 1 && dyn(2.5) != 2",
      "'a' in {'a': 1} && !('b' in {'a': 1}) && 1 in {1: 'x'} && {1: 'x'}[1] == 'x'",
      "int('12') == 12 && int(3.9) == 3 && uint(5) == 5u && double(2) == 2.0 && string(12) == '12'",
      "string(1.5) == '1.5' && string(true) == 'true' && bool('true') && !bool('0') && bytes('a') == b'a'",
      "string(1e6) == '1e+06' && string(123456.0) == '123456' && string(0.0001) == '0.0001' && "
      "string(1e-05) == '1e-05'",
      "type(1) == int && type('a') == string && type([1]) == list && type({}) == map && type(null) == null_type",
      "null == null && [[1], [2]] == [[1], [2]] && {'a': [1]} == {'a': [1]} && [1] != [2]",
      "-9223372036854775808 < 0 && 0x10 == 16 && 1e3 == 1000.0 && .5 == 0.5 && \"\"\"a\nb\"\"\" == 'a\\nb'",
      "has({'a': 1}.a) && !has({'a': 1}.b) && has(device.attributes.anything)",
      "'gpu.example.com' in device.attributes && !('nowhere.example.com' in device.attributes)",
      "size(device.attributes) == 2 && device.attributes.exists(d, d == 'vendor.example.com')",
      "device.attributes[\"gpu.example.com\"].exists(k, k == 'cores') && "
      "device.attributes[\"gpu.example.com\"].all(k, k != 'bogus')",
      "device.capacity.all(d, device.capacity[d].all(n, device.capacity[d][n].isGreaterThan(quantity('1Gi'))))",
      "[\"a\", \"gpu.example.com\"].exists(x, x == device.driver)",
      "cel.bind(dra, device.attributes[\"gpu.example.com\"], dra.mig && dra.cores > 100)",
      "device.attributes[\"gpu.example.com\"].cores + 1 == 133 && device.attributes[\"gpu.example.com\"].cores / 2 "
      "== 66",
      "device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"40Gi\")) >= 0",
  });
  // Errors inside all/exists are absorbed when another element decides.
  ExpectAllTrue({"[1, 0].exists(x, 1 / x == 1)", "![0, 1].all(x, 1 / x == 2)"});
  EXPECT_EQ(Eval("[0].exists(x, 1 / x == 1)", H100()).error, "division by zero");
  EXPECT_EQ(Eval("[0, 1].exists_one(x, 1 / x == 1)", H100()).error, "division by zero");
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
