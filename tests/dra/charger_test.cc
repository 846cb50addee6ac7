// Tests for kueuesim/dra/charger.h: each of Kueue's DRA charging rules
// (kueue pkg/dra, workload_controller.go handleDRA) with Kueue's numbers and
// messages, and the Configuration checks of deviceClassMappings.
#include "kueuesim/dra/charger.h"

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace kueuesim::dra {
namespace {

using ::kueuesim::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;
using Requests = std::map<std::string, Amount>;

constexpr Amount kGi = int64_t{1} << 30;

Quantity Q(const std::string& text) {
  auto q = ParseQuantity(text);
  EXPECT_TRUE(q.ok()) << text;
  return q.ok() ? *q : Quantity{};
}

model::DeviceAttribute Str(const std::string& s) {
  model::DeviceAttribute a;
  a.type = model::DeviceAttribute::Type::kString;
  a.string_value = s;
  return a;
}

// A whole GPU of gpu.example.com with attribute model.
model::Device Gpu(const std::string& name, const std::string& model) {
  model::Device d;
  d.name = name;
  d.attributes["gpu.example.com/model"] = Str(model);
  return d;
}

// A MIG partition of gpu.nvidia.com: type "mig", profile, consuming
// `memory` from counter set "gpu-0-cs".
model::Device Mig(const std::string& name, const std::string& profile, const std::string& memory) {
  model::Device d;
  d.name = name;
  d.attributes["gpu.nvidia.com/type"] = Str("mig");
  d.attributes["gpu.nvidia.com/profile"] = Str(profile);
  model::DeviceCounterConsumption c;
  c.counter_set = "gpu-0-cs";
  c.counters["memory"] = Q(memory);
  d.consumes_counters.push_back(c);
  return d;
}

model::ResourceSlice Slice(const std::string& name, const std::string& driver, const std::string& pool,
                           int64_t generation, int64_t slice_count, std::vector<model::Device> devices) {
  model::ResourceSlice s;
  s.meta.name = name;
  s.driver = driver;
  s.pool_name = pool;
  s.pool_generation = generation;
  s.pool_resource_slice_count = slice_count;
  s.node_name = "node-1";
  s.devices = std::move(devices);
  return s;
}

model::DeviceClass Class(const std::string& name, std::vector<std::string> selectors = {},
                         const std::string& extended_resource = "",
                         std::optional<UnixMicros> created = std::nullopt) {
  model::DeviceClass c;
  c.meta.name = name;
  c.meta.creation_timestamp = created;
  c.meta.source = {"classes.yaml", 7};
  c.selectors = std::move(selectors);
  c.extended_resource_name = extended_resource;
  return c;
}

model::DeviceRequest Request(const std::string& name, const std::string& device_class, int64_t count = 1,
                             std::vector<std::string> selectors = {}) {
  model::DeviceRequest r;
  r.name = name;
  r.exactly = true;
  r.device_class_name = device_class;
  r.count = count;
  r.selectors = std::move(selectors);
  return r;
}

model::ResourceClaimTemplate Template(const std::string& name, std::vector<model::DeviceRequest> requests) {
  model::ResourceClaimTemplate t;
  t.meta.name = name;
  t.meta.namespace_ = "default";
  t.meta.source = {"templates.yaml", 11};
  t.requests = std::move(requests);
  return t;
}

model::PodResourceClaim Claim(const std::string& name, const std::string& tmpl) {
  model::PodResourceClaim c;
  c.name = name;
  c.resource_claim_template_name = tmpl;
  return c;
}

model::DeviceClassMapping Mapping(const std::string& name, std::vector<std::string> classes,
                                  std::vector<model::DeviceClassMappingSource> sources = {}) {
  model::DeviceClassMapping m;
  m.name = name;
  m.device_class_names = std::move(classes);
  m.sources = std::move(sources);
  return m;
}

model::DeviceClassMappingSource Counter(const std::string& counter, const std::string& driver,
                                        const std::string& selector) {
  model::DeviceClassMappingSource s;
  s.kind = model::DeviceClassMappingSource::Kind::kCounter;
  s.name = counter;
  s.driver = driver;
  s.device_selector = selector;
  return s;
}

model::DeviceClassMappingSource Capacity(const std::string& name, const std::string& driver,
                                         const std::string& selector) {
  model::DeviceClassMappingSource s = Counter(name, driver, selector);
  s.kind = model::DeviceClassMappingSource::Kind::kCapacity;
  return s;
}

class ChargerTest : public ::testing::Test {
 protected:
  absl::StatusOr<std::unique_ptr<Charger>> Make() {
    ChargerInputs in;
    in.mappings = mappings;
    in.mappings_source = {"config.yaml", 3};
    in.device_classes = &classes;
    in.templates = &templates;
    in.slices = &slices;
    in.gates = gates;
    return Charger::Create(in);
  }

  // Charges a pod set "main" with `claims` and per-pod `requests`.
  PodSetCharge Charge(std::vector<model::PodResourceClaim> claims,
                      const Requests& requests = {{"cpu", 1000}}) {
    auto charger = Make();
    EXPECT_TRUE(charger.ok()) << charger.status();
    if (!charger.ok()) return {};
    model::PodSet ps;
    ps.rare.Mutable().resource_claims = std::move(claims);
    EXPECT_TRUE((*charger)->Applies(ps, requests) || ps.rare->resource_claims.empty());
    return (*charger)->Charge("default", ps, requests);
  }

  // One whole-GPU class mapped to whole-gpus.
  void WholeGpus() {
    classes.push_back(Class("gpu.example.com", {"device.driver == \"gpu.example.com\""}));
    mappings.push_back(Mapping("whole-gpus", {"gpu.example.com"}));
  }

  // The MIG setup: class mig.nvidia.com (type "mig"), mapping gpu.memory
  // with a counter source "memory" of driver gpu.nvidia.com.
  void MigMemory() {
    classes.push_back(Class("mig.nvidia.com", {"device.attributes[\"gpu.nvidia.com\"].type == \"mig\""}));
    mappings.push_back(Mapping("gpu.memory", {"mig.nvidia.com"},
                               {Counter("memory", "gpu.nvidia.com", "device.driver == \"gpu.nvidia.com\"")}));
  }

  std::vector<model::DeviceClass> classes;
  std::vector<model::ResourceClaimTemplate> templates;
  std::vector<model::ResourceSlice> slices;
  std::vector<model::DeviceClassMapping> mappings;
  model::FeatureGates gates;
};

// Setup: template "two-gpus" with one ExactCount request of count 2 of
// gpu.example.com (mapped to whole-gpus); pod requests cpu 1000m.
// Expected: per pod cpu 1000, whole-gpus 2.
TEST_F(ChargerTest, ExactCountChargesTheCount) {
  WholeGpus();
  templates.push_back(Template("two-gpus", {Request("gpu", "gpu.example.com", 2)}));
  PodSetCharge c = Charge({Claim("gpus", "two-gpus")});
  EXPECT_EQ(c.inadmissible_reason, "");
  EXPECT_THAT(c.per_pod_requests, ElementsAre(Pair("cpu", 1000), Pair("whole-gpus", 2)));
}

// Setup: a request without count (the API default 1). Expected: whole-gpus 1.
TEST_F(ChargerTest, CountDefaultsToOne) {
  WholeGpus();
  model::DeviceRequest r;
  r.name = "gpu";
  r.exactly = true;
  r.device_class_name = "gpu.example.com";
  templates.push_back(Template("one-gpu", {r}));
  EXPECT_THAT(Charge({Claim("gpu", "one-gpu")}).per_pod_requests,
              ElementsAre(Pair("cpu", 1000), Pair("whole-gpus", 1)));
}

// Setup: whole-gpus maps two classes (gpu.example.com, gpu-b.example.com);
// template "a" requests 2 + 1 (two requests), template "b" requests 1 of the
// second class; the pod has claims a, a (twice) and b.
// Expected: whole-gpus = 3 + 3 + 1 = 7; other requests unchanged.
TEST_F(ChargerTest, SumsRequestsAndClaimsPerPod) {
  classes.push_back(Class("gpu.example.com"));
  classes.push_back(Class("gpu-b.example.com"));
  mappings.push_back(Mapping("whole-gpus", {"gpu.example.com", "gpu-b.example.com"}));
  templates.push_back(
      Template("a", {Request("x", "gpu.example.com", 2), Request("y", "gpu.example.com", 1)}));
  templates.push_back(Template("b", {Request("z", "gpu-b.example.com", 1)}));
  PodSetCharge c =
      Charge({Claim("c1", "a"), Claim("c2", "a"), Claim("c3", "b")}, {{"cpu", 500}, {"memory", 1000}});
  EXPECT_THAT(c.per_pod_requests, ElementsAre(Pair("cpu", 500), Pair("memory", 1000), Pair("whole-gpus", 7)));
}

// Setup: two requests of count 2^62 each. Expected: the sum saturates at
// INT64_MAX (kUnlimited) instead of wrapping.
TEST_F(ChargerTest, DeviceCountsSaturate) {
  WholeGpus();
  const int64_t big = int64_t{1} << 62;
  templates.push_back(
      Template("huge", {Request("a", "gpu.example.com", big), Request("b", "gpu.example.com", big)}));
  EXPECT_EQ(Charge({Claim("c", "huge")}).per_pod_requests["whole-gpus"], kUnlimited);
}

// Setup: adminAccess request of count 4 plus a normal request of 1; another
// adminAccess request of an unmapped class. Expected: whole-gpus 1 (admin
// access is free and not checked against the mappings).
TEST_F(ChargerTest, AdminAccessIsFree) {
  WholeGpus();
  model::DeviceRequest admin = Request("admin", "gpu.example.com", 4);
  admin.admin_access = true;
  model::DeviceRequest admin_unmapped = Request("monitor", "unmapped.example.com", 1);
  admin_unmapped.admin_access = true;
  templates.push_back(Template("t", {admin, Request("gpu", "gpu.example.com"), admin_unmapped}));
  PodSetCharge c = Charge({Claim("c", "t")});
  EXPECT_EQ(c.inadmissible_reason, "");
  EXPECT_THAT(c.per_pod_requests, ElementsAre(Pair("cpu", 1000), Pair("whole-gpus", 1)));
}

// Setup: allocationMode All. Expected: refused with Kueue's field error,
// requests unchanged.
TEST_F(ChargerTest, AllocationModeAllIsRefused) {
  WholeGpus();
  model::DeviceRequest all = Request("all", "gpu.example.com");
  all.allocation_mode = "All";
  templates.push_back(Template("t", {Request("ok", "gpu.example.com"), all}));
  PodSetCharge c = Charge({Claim("c", "t")});
  EXPECT_EQ(c.inadmissible_reason,
            "spec.podSets[main].template.spec.resourceClaims[0].devices.requests[1].exactly.allocationMode: "
            "Invalid value: \"All\": ResourceClaimTemplate t: AllocationMode 'All' is not supported");
  EXPECT_THAT(c.per_pod_requests, ElementsAre(Pair("cpu", 1000)));
}

// Setup: a firstAvailable request with 2 alternatives. Expected: refused.
TEST_F(ChargerTest, FirstAvailableIsRefused) {
  WholeGpus();
  model::DeviceRequest r;
  r.name = "any";
  r.first_available = 2;
  templates.push_back(Template("t", {r}));
  EXPECT_EQ(Charge({Claim("c", "t")}).inadmissible_reason,
            "spec.podSets[main].template.spec.resourceClaims[0].devices.requests[0]: Invalid value: null: "
            "ResourceClaimTemplate t: FirstAvailable device selection is not supported");
}

// Setup: a pod claim referencing ResourceClaim "shared" by name (plus a
// valid template claim). Expected: refused as Kueue's handleDRA does.
TEST_F(ChargerTest, ClaimByNameIsRefused) {
  WholeGpus();
  templates.push_back(Template("t", {Request("gpu", "gpu.example.com")}));
  model::PodResourceClaim shared;
  shared.name = "shared";
  shared.resource_claim_name = "shared-claim";
  PodSetCharge c = Charge({Claim("c", "t"), shared});
  EXPECT_EQ(c.inadmissible_reason, "KueueDRAIntegration feature does not support use of resource claims");
  EXPECT_THAT(c.per_pod_requests, ElementsAre(Pair("cpu", 1000)));
}

// Setup: a request of class "fpga.example.com" with no mapping. Expected:
// refused, NotFound on resourceClaimTemplateName.
TEST_F(ChargerTest, UnmappedClassIsRefused) {
  WholeGpus();
  classes.push_back(Class("fpga.example.com"));
  templates.push_back(
      Template("t", {Request("gpu", "gpu.example.com"), Request("fpga", "fpga.example.com")}));
  EXPECT_EQ(Charge({Claim("c", "t")}).inadmissible_reason,
            "spec.podSets[main].template.spec.resourceClaims[0].resourceClaimTemplateName: Not found: "
            "\"DeviceClass fpga.example.com is not mapped in DRA configuration for podset main\"");
}

// Setup: a claim of template "missing" (not in namespace default), and a
// template of another namespace. Expected: refused (Kueue retries an
// internal error; here templates never appear later).
TEST_F(ChargerTest, MissingTemplateIsRefused) {
  WholeGpus();
  templates.push_back(Template("elsewhere", {Request("gpu", "gpu.example.com")}));
  templates.back().meta.namespace_ = "team-b";
  EXPECT_EQ(
      Charge({Claim("c", "elsewhere")}).inadmissible_reason,
      "spec.podSets[main].template.spec.resourceClaims[0]: Internal error: failed to get claim spec for "
      "ResourceClaimTemplate elsewhere in podset main: resourceclaimtemplates.resource.k8s.io "
      "\"elsewhere\" not found");
}

// Setup: gate KueueDRAIntegration off. Expected: with
// KueueDRARejectWorkloadsWhenDRADisabled (default) a pod set with claims is
// refused; with it off, it is charged nothing (requests unchanged) and
// Applies is false.
TEST_F(ChargerTest, DraDisabled) {
  WholeGpus();
  templates.push_back(Template("t", {Request("gpu", "gpu.example.com")}));
  gates.kueue_dra_integration = false;
  PodSetCharge c = Charge({Claim("c", "t")});
  EXPECT_EQ(c.inadmissible_reason,
            "Workload uses DRA resources but the KueueDRAIntegration feature gate is not enabled");

  gates.kueue_dra_reject_workloads_when_dra_disabled = false;
  auto charger = Make();
  ASSERT_TRUE(charger.ok());
  model::PodSet ps;
  ps.rare.Mutable().resource_claims = {Claim("c", "t")};
  EXPECT_FALSE((*charger)->Applies(ps, {{"cpu", 1000}}));
  c = (*charger)->Charge("default", ps, {{"cpu", 1000}});
  EXPECT_EQ(c.inadmissible_reason, "");
  EXPECT_THAT(c.per_pod_requests, ElementsAre(Pair("cpu", 1000)));
}

// Setup: slices with 2 H100 and 1 A100 (gpu.example.com); a request of
// count 2 with selector model == "H100". Expected: charged 2; with count 3:
// refused, 2 devices match but 3 requested.
TEST_F(ChargerTest, CelPreCheckCountsMatchingDevices) {
  WholeGpus();
  slices.push_back(Slice("node-1-gpus", "gpu.example.com", "node-1", 1, 1,
                         {Gpu("gpu-0", "H100"), Gpu("gpu-1", "A100"), Gpu("gpu-2", "H100")}));
  const std::string h100 = "device.attributes[\"gpu.example.com\"].model == \"H100\"";
  templates.push_back(Template("two", {Request("gpu", "gpu.example.com", 2, {h100})}));
  templates.push_back(Template("three", {Request("gpu", "gpu.example.com", 3, {h100})}));
  EXPECT_THAT(Charge({Claim("c", "two")}).per_pod_requests,
              ElementsAre(Pair("cpu", 1000), Pair("whole-gpus", 2)));
  EXPECT_EQ(
      Charge({Claim("c", "three")}).inadmissible_reason,
      "spec.podSets[main].template.spec.resourceClaims[0].devices.requests[0].exactly.selectors: Internal "
      "error: ResourceClaimTemplate three: insufficient matching devices for CEL selector in DeviceClass "
      "gpu.example.com: 2 device(s) match in the cluster but 3 requested");
}

// Setup: 3 H100; one claim with two requests of 2 H100 each; then two
// claims of one request of 2 each. Expected: a device serves one request of
// a claim only, so the first is refused (the second request finds 1); claims
// are checked separately, so the second is charged 4. Allocation state and
// nodes are ignored.
TEST_F(ChargerTest, CelPreCheckUsesEachDeviceOncePerClaim) {
  WholeGpus();
  slices.push_back(
      Slice("a", "gpu.example.com", "node-1", 1, 1, {Gpu("gpu-0", "H100"), Gpu("gpu-1", "H100")}));
  slices.push_back(Slice("b", "gpu.example.com", "node-2", 1, 1, {Gpu("gpu-0", "H100")}));
  const std::string h100 = "device.attributes[\"gpu.example.com\"].model == \"H100\"";
  templates.push_back(Template(
      "pair", {Request("x", "gpu.example.com", 2, {h100}), Request("y", "gpu.example.com", 2, {h100})}));
  templates.push_back(Template("single", {Request("x", "gpu.example.com", 2, {h100})}));
  EXPECT_THAT(Charge({Claim("c", "pair")}).inadmissible_reason,
              HasSubstr("devices.requests[1].exactly.selectors: Internal error: ResourceClaimTemplate pair: "
                        "insufficient matching devices for CEL selector in DeviceClass gpu.example.com: 1 "
                        "device(s) match in the cluster but 2 requested"));
  EXPECT_THAT(Charge({Claim("c1", "single"), Claim("c2", "single")}).per_pod_requests,
              ElementsAre(Pair("cpu", 1000), Pair("whole-gpus", 4)));
}

// Setup: the first device (slice "a") has no model attribute; the request
// selects model == "H100". Expected: CEL runtime error ⇒ refused, as in
// Kueue ("CEL evaluation failed"); a guarded selector (has()) charges 1.
TEST_F(ChargerTest, CelPreCheckRuntimeErrorIsRefused) {
  WholeGpus();
  model::Device bare;
  bare.name = "nic-0";
  slices.push_back(Slice("a", "gpu.example.com", "node-1", 1, 1, {bare}));
  slices.push_back(Slice("b", "gpu.example.com", "node-1", 1, 1, {Gpu("gpu-0", "H100")}));
  templates.push_back(Template("t", {Request("gpu", "gpu.example.com", 1,
                                             {"device.attributes[\"gpu.example.com\"].model == \"H100\""})}));
  templates.push_back(
      Template("guarded", {Request("gpu", "gpu.example.com", 1,
                                   {"has(device.attributes[\"gpu.example.com\"].model) && "
                                    "device.attributes[\"gpu.example.com\"].model == \"H100\""})}));
  EXPECT_EQ(
      Charge({Claim("c", "t")}).inadmissible_reason,
      "spec.podSets[main].template.spec.resourceClaims[0].devices.requests[0].exactly.selectors: Invalid "
      "value: null: ResourceClaimTemplate t: CEL evaluation failed for DeviceClass gpu.example.com: no such "
      "key: model");
  EXPECT_THAT(Charge({Claim("c", "guarded")}).per_pod_requests,
              ElementsAre(Pair("cpu", 1000), Pair("whole-gpus", 1)));
}

// Setup: MIG devices of gpu.nvidia.com: 1g.10gb (memory 10Gi) x2 and
// 2g.20gb (20Gi) x1, one complete pool. Requests of class mig.nvidia.com
// (counter mapping gpu.memory, counter "memory").
// Expected: selector profile 1g.10gb, count 2: max 10Gi x 2 = 20Gi; no
// request selector, count 2: max(10Gi, 20Gi) x 2 = 40Gi; the class is
// charged by counters only (no device count under gpu.memory).
TEST_F(ChargerTest, CounterChargeIsMaxOverMatchedDevicesTimesCount) {
  MigMemory();
  slices.push_back(Slice(
      "node-1-mig", "gpu.nvidia.com", "node-1", 1, 1,
      {Mig("mig-0", "1g.10gb", "10Gi"), Mig("mig-1", "1g.10gb", "10Gi"), Mig("mig-2", "2g.20gb", "20Gi")}));
  templates.push_back(
      Template("small", {Request("mig", "mig.nvidia.com", 2,
                                 {"device.attributes[\"gpu.nvidia.com\"].profile == \"1g.10gb\""})}));
  templates.push_back(Template("any", {Request("mig", "mig.nvidia.com", 2)}));
  PodSetCharge small = Charge({Claim("c", "small")});
  EXPECT_EQ(small.inadmissible_reason, "");
  EXPECT_THAT(small.per_pod_requests, ElementsAre(Pair("cpu", 1000), Pair("gpu.memory", 20 * kGi)));
  EXPECT_THAT(Charge({Claim("c", "any")}).per_pod_requests,
              ElementsAre(Pair("cpu", 1000), Pair("gpu.memory", 40 * kGi)));
}

// Setup: pool "node-1" at generation 1 (a 80Gi partition) and generation 2
// (a 10Gi partition); pool "node-2" says 2 slices but only 1 is published
// (a 40Gi partition). Expected: only the complete pool's highest generation
// counts: 10Gi x 1; count 2 is refused (1 device matches).
TEST_F(ChargerTest, CounterUsesHighestGenerationOfCompletePools) {
  MigMemory();
  slices.push_back(Slice("n1-gen1", "gpu.nvidia.com", "node-1", 1, 1, {Mig("mig-0", "7g.80gb", "80Gi")}));
  slices.push_back(Slice("n1-gen2", "gpu.nvidia.com", "node-1", 2, 1, {Mig("mig-0", "1g.10gb", "10Gi")}));
  slices.push_back(Slice("n2-part1", "gpu.nvidia.com", "node-2", 1, 2, {Mig("mig-0", "3g.40gb", "40Gi")}));
  templates.push_back(Template("one", {Request("mig", "mig.nvidia.com", 1)}));
  templates.push_back(Template("two", {Request("mig", "mig.nvidia.com", 2)}));
  EXPECT_THAT(Charge({Claim("c", "one")}).per_pod_requests,
              ElementsAre(Pair("cpu", 1000), Pair("gpu.memory", 10 * kGi)));
  EXPECT_EQ(Charge({Claim("c", "two")}).inadmissible_reason,
            "spec.podSets[main].template.spec.resourceClaims[0].devices.requests[0]: Internal error: "
            "insufficient matching devices for counter driver: 1 device(s) match but 2 requested");
}

// Setup: matched MIG devices publish no "memory" counter (only "compute").
// Expected: refused (never a 0 charge).
TEST_F(ChargerTest, CounterMissingOnMatchedDevicesIsRefused) {
  MigMemory();
  model::Device d = Mig("mig-0", "1g.10gb", "10Gi");
  d.consumes_counters[0].counters = {{"compute", Q("1")}};
  slices.push_back(Slice("s", "gpu.nvidia.com", "node-1", 1, 1, {d}));
  templates.push_back(Template("one", {Request("mig", "mig.nvidia.com", 1)}));
  EXPECT_EQ(Charge({Claim("c", "one")}).inadmissible_reason,
            "spec.podSets[main].template.spec.resourceClaims[0].devices.requests[0]: Internal error: matched "
            "devices have no consumesCounters entry for counter \"memory\"");
}

// Setup: class mig.nvidia.com in two counter mappings: gpu.memory (counter
// memory) and gpu.compute (counter compute); devices consume memory 10Gi and
// compute 2. Count 3 with 3 devices. Expected: gpu.memory 30Gi, gpu.compute 6.
TEST_F(ChargerTest, CounterMappingsOfTwoCountersForOneClass) {
  MigMemory();
  mappings.push_back(Mapping("gpu.compute", {"mig.nvidia.com"},
                             {Counter("compute", "gpu.nvidia.com", "device.driver == \"gpu.nvidia.com\"")}));
  std::vector<model::Device> devices;
  for (int i = 0; i < 3; ++i) {
    model::Device d = Mig("mig-" + std::to_string(i), "1g.10gb", "10Gi");
    d.consumes_counters[0].counters["compute"] = Q("2");
    devices.push_back(d);
  }
  slices.push_back(Slice("s", "gpu.nvidia.com", "node-1", 1, 1, devices));
  templates.push_back(Template("three", {Request("mig", "mig.nvidia.com", 3)}));
  EXPECT_THAT(Charge({Claim("c", "three")}).per_pod_requests,
              ElementsAre(Pair("cpu", 1000), Pair("gpu.compute", 6), Pair("gpu.memory", 30 * kGi)));
}

// Setup: the only 1g.10gb partitions are in pool "node-2", which is
// incomplete (2 slices announced, 1 published); the request selects
// profile 1g.10gb, count 1. Expected: Kueue's CEL pre-check lists slices
// whole (any generation, complete or not) and passes with 1 match, but the
// counter stage only reads complete pools and refuses: 0 devices match.
TEST_F(ChargerTest, CelPreCheckSeesIncompletePoolsCountersDoNot) {
  MigMemory();
  slices.push_back(Slice("n1", "gpu.nvidia.com", "node-1", 1, 1, {Mig("mig-0", "7g.80gb", "80Gi")}));
  slices.push_back(Slice("n2-part1", "gpu.nvidia.com", "node-2", 1, 2, {Mig("mig-0", "1g.10gb", "10Gi")}));
  templates.push_back(
      Template("small", {Request("mig", "mig.nvidia.com", 1,
                                 {"device.attributes[\"gpu.nvidia.com\"].profile == \"1g.10gb\""})}));
  EXPECT_EQ(Charge({Claim("c", "small")}).inadmissible_reason,
            "spec.podSets[main].template.spec.resourceClaims[0].devices.requests[0]: Internal error: "
            "insufficient matching devices for counter driver: 0 device(s) match but 1 requested");
}

// Setup: a mapping named "cpu" (a valid name) for class gpu.example.com;
// a request of 2 devices. Expected: the logical charge is in Kueue's
// canonical cpu unit (milli): 1000m + 2000m = 3000.
TEST_F(ChargerTest, LogicalChargesUseCanonicalUnits) {
  classes.push_back(Class("gpu.example.com"));
  mappings.push_back(Mapping("cpu", {"gpu.example.com"}));
  templates.push_back(Template("t", {Request("gpu", "gpu.example.com", 2)}));
  EXPECT_THAT(Charge({Claim("c", "t")}).per_pod_requests, ElementsAre(Pair("cpu", 3000)));
}

// Setup: no ResourceSlices at all for a counter mapping. Expected: refused,
// 0 devices match.
TEST_F(ChargerTest, CounterWithoutSlicesIsRefused) {
  MigMemory();
  templates.push_back(Template("one", {Request("mig", "mig.nvidia.com", 1)}));
  EXPECT_THAT(
      Charge({Claim("c", "one")}).inadmissible_reason,
      HasSubstr("insufficient matching devices for counter driver: 0 device(s) match but 1 requested"));
}

// Setup: a capacity source with the default gates
// (KueueDRAIntegrationConsumableCapacity off), and a counter source with
// KueueDRAIntegrationPartitionableDevices off. Expected: Kueue refuses the
// Configuration at startup: Create fails naming the field.
TEST_F(ChargerTest, SourcesNeedTheirGates) {
  classes.push_back(Class("share.example.com"));
  mappings.push_back(
      Mapping("shared-mem", {"share.example.com"},
              {Capacity("gpu.example.com/memory", "gpu.example.com", "device.allowMultipleAllocations")}));
  EXPECT_THAT(Make(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "config.yaml:3: Configuration: resources.deviceClassMappings[0].sources[0].capacity: "
                       "Invalid value: true: capacity sources require KueueDRAIntegrationConsumableCapacity "
                       "to be enabled"));
  mappings = {Mapping("gpu.memory", {"mig.nvidia.com"}, {Counter("memory", "gpu.nvidia.com", "true")})};
  gates.kueue_dra_integration_partitionable_devices = false;
  EXPECT_THAT(Make(), StatusIs(absl::StatusCode::kInvalidArgument,
                               HasSubstr("sources[0].counter: Invalid value: true: counter sources require "
                                         "KueueDRAIntegrationPartitionableDevices to be enabled")));
}

// Setup (gate KueueDRAIntegrationConsumableCapacity on): class
// share.example.com mapped to shared-mem with capacity
// gpu.example.com/memory; one shared device of 80Gi with requestPolicy
// default 10Gi, validRange min 1Gi, step 1Gi, max 40Gi.
// Expected per pod: no capacity request ⇒ default 10Gi; 2.5Gi x count 2 ⇒
// rounded up to 3Gi x 2 = 6Gi; 100Gi ⇒ over max ⇒ refused.
TEST_F(ChargerTest, CapacityRoundsByValidRange) {
  gates.kueue_dra_integration_consumable_capacity = true;
  classes.push_back(Class("share.example.com"));
  mappings.push_back(Mapping("shared-mem", {"share.example.com"},
                             {Capacity("memory", "gpu.example.com", "device.allowMultipleAllocations")}));
  model::Device d;
  d.name = "gpu-0";
  d.allow_multiple_allocations = true;
  model::DeviceCapacity memory;
  memory.value = Q("80Gi");
  memory.default_value = Q("10Gi");
  memory.range_min = Q("1Gi");
  memory.range_step = Q("1Gi");
  memory.range_max = Q("40Gi");
  d.capacity["gpu.example.com/memory"] = memory;
  slices.push_back(Slice("s", "gpu.example.com", "node-1", 1, 1, {d}));
  model::DeviceRequest plain = Request("mem", "share.example.com");
  model::DeviceRequest explicit_request = Request("mem", "share.example.com", 2);
  explicit_request.capacity_requests["gpu.example.com/memory"] = Q("2.5Gi");
  model::DeviceRequest too_big = Request("mem", "share.example.com");
  too_big.capacity_requests["memory"] = Q("100Gi");
  templates.push_back(Template("plain", {plain}));
  templates.push_back(Template("explicit", {explicit_request}));
  templates.push_back(Template("too-big", {too_big}));
  EXPECT_THAT(Charge({Claim("c", "plain")}).per_pod_requests,
              ElementsAre(Pair("cpu", 1000), Pair("shared-mem", 10 * kGi)));
  // count 2 needs 2 matching devices.
  EXPECT_THAT(
      Charge({Claim("c", "explicit")}).inadmissible_reason,
      HasSubstr("insufficient matching devices for capacity driver: 1 device(s) match but 2 requested"));
  d.name = "gpu-1";
  slices.push_back(Slice("t", "gpu.example.com", "node-2", 1, 1, {d}));
  EXPECT_THAT(Charge({Claim("c", "explicit")}).per_pod_requests,
              ElementsAre(Pair("cpu", 1000), Pair("shared-mem", 6 * kGi)));
  EXPECT_EQ(Charge({Claim("c", "too-big")}).inadmissible_reason,
            "spec.podSets[main].template.spec.resourceClaims[0].devices.requests[0]: Invalid value: null: "
            "capacity request cannot be satisfied by any matched device's RequestPolicy for dimension "
            "\"gpu.example.com/memory\"");
}

// Setup (consumable capacity on): devices A validValues [8Gi, 16Gi, 32Gi],
// B validRange min 4Gi step 6Gi (4, 10, 16, ...), C no policy (24Gi).
// Expected: request 5Gi ⇒ A 8Gi, B 10Gi, C 5Gi ⇒ max 10Gi; request 20Gi ⇒
// A 32Gi, B 22Gi, C 20Gi ⇒ 32Gi; no request ⇒ each device's full capacity
// (A 64Gi > all valid values ⇒ skipped, B 64 → 64Gi, C 24Gi) ⇒ 64Gi.
TEST_F(ChargerTest, CapacityIsMaxOverDevicesOfTheRoundedRequest) {
  gates.kueue_dra_integration_consumable_capacity = true;
  classes.push_back(Class("share.example.com"));
  mappings.push_back(Mapping("shared-mem", {"share.example.com"},
                             {Capacity("gpu.example.com/memory", "gpu.example.com", "true")}));
  auto device = [](const std::string& name, model::DeviceCapacity cap) {
    model::Device d;
    d.name = name;
    d.capacity["gpu.example.com/memory"] = std::move(cap);
    return d;
  };
  model::DeviceCapacity a, b, c;
  a.value = Q("64Gi");
  a.valid_values = {Q("8Gi"), Q("16Gi"), Q("32Gi")};
  b.value = Q("64Gi");
  b.range_min = Q("4Gi");
  b.range_step = Q("6Gi");
  c.value = Q("24Gi");
  slices.push_back(
      Slice("s", "gpu.example.com", "node-1", 1, 1, {device("a", a), device("b", b), device("c", c)}));
  auto with_request = [](const std::string& q) {
    model::DeviceRequest r = Request("mem", "share.example.com");
    if (!q.empty()) r.capacity_requests["gpu.example.com/memory"] = Q(q);
    return r;
  };
  templates.push_back(Template("five", {with_request("5Gi")}));
  templates.push_back(Template("twenty", {with_request("20Gi")}));
  templates.push_back(Template("none", {with_request("")}));
  EXPECT_EQ(Charge({Claim("c", "five")}).per_pod_requests["shared-mem"], 10 * kGi);
  EXPECT_EQ(Charge({Claim("c", "twenty")}).per_pod_requests["shared-mem"], 32 * kGi);
  EXPECT_EQ(Charge({Claim("c", "none")}).per_pod_requests["shared-mem"], 64 * kGi);
}

// Setup: class gpu.example.com with extendedResourceName example.com/gpu,
// mapped to whole-gpus; the pod requests cpu 1000m and example.com/gpu 2.
// Expected: example.com/gpu is replaced by whole-gpus 2.
TEST_F(ChargerTest, ExtendedResourceOfAMappedClass) {
  classes.push_back(Class("gpu.example.com", {}, "example.com/gpu"));
  mappings.push_back(Mapping("whole-gpus", {"gpu.example.com"}));
  PodSetCharge c = Charge({}, {{"cpu", 1000}, {"example.com/gpu", 2}});
  EXPECT_EQ(c.inadmissible_reason, "");
  EXPECT_THAT(c.per_pod_requests, ElementsAre(Pair("cpu", 1000), Pair("whole-gpus", 2)));
}

// Setup: class fpga.example.com with extendedResourceName example.com/fpga,
// not mapped; example.com/nic has no DeviceClass. Expected: example.com/fpga
// is charged under its own name (3); example.com/nic stays an ordinary
// extended resource; Applies is true only for the DRA-backed one.
TEST_F(ChargerTest, ExtendedResourceOfAnUnmappedClass) {
  classes.push_back(Class("fpga.example.com", {}, "example.com/fpga"));
  auto charger = Make();
  ASSERT_TRUE(charger.ok()) << charger.status();
  model::PodSet ps;
  EXPECT_TRUE((*charger)->Applies(ps, {{"example.com/fpga", 3}}));
  EXPECT_FALSE((*charger)->Applies(ps, {{"example.com/nic", 1}}));
  EXPECT_FALSE((*charger)->Applies(ps, {{"example.com/fpga", 0}}));
  PodSetCharge c = (*charger)->Charge("default", ps, {{"example.com/fpga", 3}, {"example.com/nic", 1}});
  EXPECT_THAT(c.per_pod_requests, ElementsAre(Pair("example.com/fpga", 3), Pair("example.com/nic", 1)));
}

// Setup: three classes declare example.com/gpu: "old" (created 1000s,
// mapped to old-gpus), "zeta" and "beta" (both created 2000s, mapped to
// zeta-gpus and beta-gpus), and "undated" (no timestamp, mapped to
// undated-gpus). Expected: the newest wins and the name breaks the tie:
// beta ⇒ beta-gpus 1.
TEST_F(ChargerTest, ExtendedResourceNewestClassWinsNameBreaksTies) {
  const UnixMicros s = 1'000'000;
  classes.push_back(Class("old", {}, "example.com/gpu", 1000 * s));
  classes.push_back(Class("zeta", {}, "example.com/gpu", 2000 * s));
  classes.push_back(Class("beta", {}, "example.com/gpu", 2000 * s));
  classes.push_back(Class("undated", {}, "example.com/gpu"));
  mappings = {Mapping("old-gpus", {"old"}), Mapping("zeta-gpus", {"zeta"}), Mapping("beta-gpus", {"beta"}),
              Mapping("undated-gpus", {"undated"})};
  EXPECT_THAT(Charge({}, {{"example.com/gpu", 1}}).per_pod_requests, ElementsAre(Pair("beta-gpus", 1)));
}

// Setup: a claim of 1 gpu.example.com and an extended request of
// example.com/gpu 2 resolving to the same class (mapped to whole-gpus).
// Expected: both paths charge the same quota key: whole-gpus 3.
TEST_F(ChargerTest, ExtendedResourceAndClaimShareTheQuotaKey) {
  classes.push_back(Class("gpu.example.com", {}, "example.com/gpu"));
  mappings.push_back(Mapping("whole-gpus", {"gpu.example.com"}));
  templates.push_back(Template("t", {Request("gpu", "gpu.example.com")}));
  EXPECT_THAT(Charge({Claim("c", "t")}, {{"example.com/gpu", 2}}).per_pod_requests,
              ElementsAre(Pair("whole-gpus", 3)));
}

// Setup: example.com/mig resolves to class mig.nvidia.com, which has a
// counter mapping. Expected: refused (use claim templates for counters).
// With gate KueueDRAIntegrationExtendedResource off: not DRA at all.
TEST_F(ChargerTest, ExtendedResourceOfACounterClassIsRefused) {
  MigMemory();
  classes.back().extended_resource_name = "example.com/mig";
  EXPECT_EQ(Charge({}, {{"example.com/mig", 1}}).inadmissible_reason,
            "spec.podSets[main].template.spec: Invalid value: \"example.com/mig\": extended resource "
            "example.com/mig resolves to DeviceClass mig.nvidia.com with counters configured; use "
            "ResourceClaimTemplates with CEL selectors for counter-based quota");
  gates.kueue_dra_integration_extended_resource = false;
  auto charger = Make();
  ASSERT_TRUE(charger.ok());
  model::PodSet ps;
  EXPECT_FALSE((*charger)->Applies(ps, {{"example.com/mig", 1}}));
  EXPECT_THAT((*charger)->Charge("default", ps, {{"example.com/mig", 1}}).per_pod_requests,
              ElementsAre(Pair("example.com/mig", 1)));
}

// Setup: mapping errors Kueue's Configuration validation rejects.
// Expected: InvalidArgument naming config.yaml:3 and the field.
TEST_F(ChargerTest, MappingValidation) {
  mappings = {Mapping("a", {"gpu.example.com"}), Mapping("b", {"gpu.example.com"})};
  EXPECT_THAT(Make(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "config.yaml:3: Configuration: resources.deviceClassMappings[1].deviceClassNames[0]: "
                       "Invalid value: \"gpu.example.com\": device class already mapped to resource a"));
  // The same class may back two counters, not the same counter twice.
  mappings = {Mapping("gpu.memory", {"mig"}, {Counter("memory", "gpu.nvidia.com", "true")}),
              Mapping("gpu.compute", {"mig"}, {Counter("compute", "gpu.nvidia.com", "true")})};
  EXPECT_TRUE(Make().ok());
  mappings.push_back(Mapping("gpu.memory2", {"mig"}, {Counter("memory", "gpu.nvidia.com", "true")}));
  EXPECT_THAT(Make(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("device class already has a counter source for counter \"memory\"")));
  gates.kueue_dra_integration_consumable_capacity = true;
  mappings = {Mapping(
      "m", {"c"}, {Counter("memory", "d.example.com", "true"), Capacity("mem", "d.example.com", "true")})};
  EXPECT_THAT(Make(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("resources.deviceClassMappings[0].sources: Invalid value: 2: cannot mix "
                                 "counter and capacity sources in the same mapping")));
  mappings = {Mapping("m", {"c"}, {Counter("memory", "d.example.com", "")})};
  EXPECT_THAT(Make(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("sources[0].counter.deviceSelector.cel.expression: Required value")));
  mappings = {Mapping("m", {"c"}, {Counter("memory", "D_bad", "true")})};
  EXPECT_THAT(Make(), StatusIs(absl::StatusCode::kInvalidArgument,
                               HasSubstr("sources[0].counter.driver: Invalid value: \"D_bad\"")));
  // A mapping's deviceSelector is compiled by Configuration validation: a
  // bad one fails the load.
  mappings = {Mapping("m", {"c"}, {Counter("memory", "d.example.com", "device.driver.matchez('x')")})};
  EXPECT_THAT(Make(), StatusIs(absl::StatusCode::kInvalidArgument,
                               HasSubstr("CEL compilation failed: compilation failed: ERROR: <input>:1:15: "
                                         "undeclared reference to 'matchez' (in container '')")));
  mappings = {Mapping("m", {})};
  EXPECT_THAT(Make(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("deviceClassNames: Required value: at least one device class name is "
                                 "required")));
  mappings = {Mapping("bad name!", {"c"})};
  EXPECT_THAT(Make(), StatusIs(absl::StatusCode::kInvalidArgument,
                               HasSubstr("[0].name: Invalid value: \"bad name!\"")));
  mappings = {Mapping("m", {"c"}), Mapping("m", {"d"})};
  EXPECT_THAT(Make(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("[1].name: Duplicate value: \"m\"")));
}

// Setup: a DeviceClass whose second selector does not compile, a claim
// template whose request selector does not compile, and a good template.
// Expected (Kueue compiles selectors where it uses them, pkg/dra/claims.go):
// the load succeeds; a workload using the bad request selector is refused
// with countDevicesPerClass's message; one using the bad class through a
// CEL request is refused with resolveAndCompileDeviceClass's; one using
// the bad class without request selectors (the class's selectors are then
// never compiled) is charged; a workload using only the good template is
// charged.
TEST_F(ChargerTest, SelectorThatDoesNotCompileRefusesOnlyItsWorkloads) {
  WholeGpus();
  classes.push_back(Class("bad.example.com", {"true", "size(device.driver, 1) > 0"}));
  mappings.push_back(Mapping("bad-gpus", {"bad.example.com"}));
  slices.push_back(Slice("s", "gpu.example.com", "p", 1, 1, {Gpu("gpu-0", "H100"), Gpu("gpu-1", "A100")}));
  templates.push_back(
      Template("bad-request", {Request("gpu", "gpu.example.com", 1, {"device.driver.matchez('x')", "true",
                                                                     "foo == 1"})}));
  templates.push_back(Template("bad-class", {Request("gpu", "bad.example.com", 1, {"true"})}));
  templates.push_back(Template("bad-class-no-cel", {Request("gpu", "bad.example.com", 1)}));
  templates.push_back(
      Template("good", {Request("gpu", "gpu.example.com", 1,
                                {"device.attributes[\"gpu.example.com\"].model.matches(\"^H1\")"})}));
  ASSERT_TRUE(Make().ok()) << Make().status();

  PodSetCharge c = Charge({Claim("c", "bad-request")});
  EXPECT_EQ(c.refused_at, ChargeStage::kTemplates);
  EXPECT_EQ(c.inadmissible_reason,
            "spec.podSets[main].template.spec.resourceClaims[0].devices.requests[0].exactly.selectors: "
            "Invalid value: null: ResourceClaimTemplate bad-request: "
            "[devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "
            "\"device.driver.matchez('x')\": CEL compilation failed: compilation failed: ERROR: <input>:1:15: "
            "undeclared reference to 'matchez' (in container ''), "
            "devices.requests[0].exactly.selectors[2].cel.expression: Invalid value: \"foo == 1\": CEL "
            "compilation failed: compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in "
            "container '')]");

  c = Charge({Claim("c", "bad-class")});
  EXPECT_EQ(c.refused_at, ChargeStage::kTemplates);
  EXPECT_EQ(c.inadmissible_reason,
            "spec.podSets[main].template.spec.resourceClaims[0].devices.requests[0][1].cel.expression: "
            "Invalid value: \"size(device.driver, 1) > 0\": ResourceClaimTemplate bad-class: DeviceClass "
            "bad.example.com has invalid CEL selector: compilation failed: ERROR: <input>:1:1: found no "
            "matching overload for 'size' applied to '(string, int)'");

  c = Charge({Claim("c", "bad-class-no-cel")});
  EXPECT_EQ(c.inadmissible_reason, "");
  EXPECT_THAT(c.per_pod_requests, ElementsAre(Pair("bad-gpus", 1), Pair("cpu", 1000)));

  c = Charge({Claim("c", "good")});
  EXPECT_EQ(c.inadmissible_reason, "");
  EXPECT_THAT(c.per_pod_requests, ElementsAre(Pair("cpu", 1000), Pair("whole-gpus", 1)));
}

// Setup: the MIG counter setup, its class given a selector that does not
// compile, and a template requesting it without selectors. Expected:
// prepareDeviceSelectors compiles the class's selectors for counter
// charging even without request selectors: refused in the counters stage
// with Kueue's message.
TEST_F(ChargerTest, CounterChargingCompilesTheClassSelectors) {
  gates.kueue_dra_integration_partitionable_devices = true;
  MigMemory();
  classes[0].selectors.push_back("device.attributes[\"gpu.nvidia.com\"].type.startsWith(1)");
  slices.push_back(Slice("s", "gpu.nvidia.com", "p", 1, 1, {Mig("mig-0", "1g.10gb", "10Gi")}));
  templates.push_back(Template("mig", {Request("mig", "mig.nvidia.com")}));
  PodSetCharge c = Charge({Claim("c", "mig")});
  EXPECT_EQ(c.refused_at, ChargeStage::kCounters);
  EXPECT_EQ(c.inadmissible_reason,
            "spec.podSets[main].template.spec.resourceClaims[0].devices.requests[0][1].cel.expression: "
            "Invalid value: \"device.attributes[\\\"gpu.nvidia.com\\\"].type.startsWith(1)\": DeviceClass "
            "mig.nvidia.com has invalid CEL selector: compilation failed: ERROR: <input>:1:42: found no "
            "matching overload for 'startsWith' applied to 'dyn.(int)'");
}

// Setup: selectors real DRA drivers publish, over the whole CEL environment
// (regular expressions, optional fields, macros, quantities, cel.bind).
// Expected: matched as Kubernetes would: 2 H100 of 3 devices.
TEST_F(ChargerTest, RealWorldSelectors) {
  classes.push_back(Class("gpu.example.com", {"[\"a.example.com\", \"gpu.example.com\"].exists(x, x == device.driver)"}));
  mappings.push_back(Mapping("whole-gpus", {"gpu.example.com"}));
  slices.push_back(Slice("s", "gpu.example.com", "p", 1, 1,
                         {Gpu("gpu-0", "NVIDIA H100 80GB"), Gpu("gpu-1", "NVIDIA A100"), Gpu("gpu-2", "NVIDIA H100 80GB")}));
  templates.push_back(Template(
      "t", {Request("gpu", "gpu.example.com", 2,
                    {"device.attributes[\"gpu.example.com\"].model.matches(\"^NVIDIA H100.*\")",
                     "cel.bind(a, device.attributes[\"gpu.example.com\"], a.?model.orValue(\"\").lowerAscii()."
                     "contains(\"h100\"))"})}));
  PodSetCharge c = Charge({Claim("c", "t")});
  EXPECT_EQ(c.inadmissible_reason, "");
  EXPECT_THAT(c.per_pod_requests, ElementsAre(Pair("cpu", 1000), Pair("whole-gpus", 2)));
  templates[0].requests[0].count = 3;
  EXPECT_THAT(Charge({Claim("c", "t")}).inadmissible_reason,
              HasSubstr("insufficient matching devices for CEL selector in DeviceClass gpu.example.com: 2 "
                        "device(s) match in the cluster but 3 requested"));
}

// Setup: a class referenced by a CEL request but absent from the cluster.
// Expected: refused with Kueue's "failed to get DeviceClass".
TEST_F(ChargerTest, MissingDeviceClassIsRefused) {
  mappings.push_back(Mapping("whole-gpus", {"gpu.example.com"}));
  templates.push_back(Template("t", {Request("gpu", "gpu.example.com", 1, {"true"})}));
  EXPECT_EQ(
      Charge({Claim("c", "t")}).inadmissible_reason,
      "spec.podSets[main].template.spec.resourceClaims[0].devices.requests[0]: Internal error: "
      "ResourceClaimTemplate t: failed to get DeviceClass gpu.example.com: deviceclasses.resource.k8s.io "
      "\"gpu.example.com\" not found");
}

// Setup: a claim of 1 gpu.example.com plus example.com/gpu 2 resolving to
// the same class (mapped to whole-gpus); pod set index 2.
// Expected: the parts callers apply after their own steps: example.com/gpu
// replaced, whole-gpus 3 added; cpu untouched. Messages name the index.
TEST_F(ChargerTest, ChargePartsAndPodSetIndex) {
  classes.push_back(Class("gpu.example.com", {}, "example.com/gpu"));
  mappings.push_back(Mapping("whole-gpus", {"gpu.example.com"}));
  templates.push_back(Template("t", {Request("gpu", "gpu.example.com")}));
  templates.push_back(Template("fpga", {Request("fpga", "fpga.example.com")}));
  auto charger = Make();
  ASSERT_TRUE(charger.ok()) << charger.status();
  model::PodSet ps;
  ps.rare.Mutable().resource_claims = {Claim("c", "t")};
  PodSetCharge c = (*charger)->Charge("default", ps, {{"cpu", 500}, {"example.com/gpu", 2}}, 2);
  EXPECT_THAT(c.replaced_extended_resources, ElementsAre("example.com/gpu"));
  EXPECT_THAT(c.dra_requests, ElementsAre(Pair("whole-gpus", 3)));
  EXPECT_EQ(c.refused_at, ChargeStage::kNone);
  ps.rare.Mutable().resource_claims = {Claim("c", "fpga")};
  c = (*charger)->Charge("default", ps, {{"cpu", 500}}, 2);
  EXPECT_EQ(c.refused_at, ChargeStage::kTemplates);
  EXPECT_EQ(c.inadmissible_reason,
            "spec.podSets[2].template.spec.resourceClaims[0].resourceClaimTemplateName: Not found: "
            "\"DeviceClass fpga.example.com is not mapped in DRA configuration for podset main\"");
  EXPECT_THAT(c.dra_requests, IsEmpty());
  EXPECT_THAT(c.per_pod_requests, ElementsAre(Pair("cpu", 500)));
}

PodSetCharge Refused(ChargeStage stage, std::vector<std::string> errors) {
  PodSetCharge c;
  c.refused_at = stage;
  c.errors = errors;
  c.inadmissible_reason = errors.size() == 1 ? errors[0] : "[" + errors[0] + ", ...]";
  return c;
}

// Setup: charges of the pod sets of one workload.
// Expected: Kueue's reason: none when nothing is refused; a workload-level
// refusal (claims by name) before any stage; else the earliest stage's
// first pod set; the extended-resource stage aggregates every pod set's
// errors (de-duplicated, in pod set order).
TEST(WorkloadInadmissibleReasonTest, EarliestStageAsKueueReportsIt) {
  EXPECT_EQ(WorkloadInadmissibleReason({}), "");
  EXPECT_EQ(WorkloadInadmissibleReason({PodSetCharge{}, PodSetCharge{}}), "");
  EXPECT_EQ(WorkloadInadmissibleReason({Refused(ChargeStage::kTemplates, {"t0"}),
                                        Refused(ChargeStage::kWorkload, {"by name"})}),
            "by name");
  EXPECT_EQ(WorkloadInadmissibleReason({Refused(ChargeStage::kCounters, {"c0"}), PodSetCharge{},
                                        Refused(ChargeStage::kTemplates, {"t2"}),
                                        Refused(ChargeStage::kTemplates, {"t3"})}),
            "t2");
  EXPECT_EQ(WorkloadInadmissibleReason({Refused(ChargeStage::kExtendedResources, {"e0", "e1"}),
                                        Refused(ChargeStage::kCapacity, {"k1"}),
                                        Refused(ChargeStage::kExtendedResources, {"e2", "e0"})}),
            "[e0, e1, e2]");
  EXPECT_EQ(WorkloadInadmissibleReason({PodSetCharge{}, Refused(ChargeStage::kExtendedResources, {"e1"})}),
            "e1");
}

}  // namespace
}  // namespace kueuesim::dra
