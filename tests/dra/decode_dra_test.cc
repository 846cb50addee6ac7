// Tests for src/scenario/decode_dra.h: the resource.k8s.io/v1 objects,
// deviceClassMappings and pod resourceClaims, and the errors (file:line,
// object, field path) for invalid input.
#include "scenario/decode_dra.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/doc/reader.h"
#include "kueuesim/dra/cel.h"
#include "testing/status_matchers.h"

namespace kueuesim::scenario {
namespace {

using ::kueuesim::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Decodes the first document of `yaml` (file "dra.yaml") with `decode`,
// naming the object `object`.
template <typename Fn>
auto Decode(Fn decode, const std::string& yaml, const std::string& object = "Object \"x\"") {
  auto docs = doc::ReadAllFromString(yaml, "dra.yaml");
  EXPECT_TRUE(docs.ok()) << docs.status();
  FieldReader reader(docs.ok() && !docs->empty() ? (*docs)[0].root() : doc::Node(),
                     std::make_shared<const std::string>(object), "");
  return decode(reader);
}

absl::StatusOr<model::ResourceClaimTemplate> ClaimTemplate(const FieldReader& object) {
  return DecodeResourceClaimTemplate(object);
}

absl::StatusOr<model::ResourceClaimTemplate> ClaimTemplateV1beta1(const FieldReader& object) {
  return DecodeResourceClaimTemplate(object, /*v1beta1_layout=*/true);
}

absl::StatusOr<model::ResourceSlice> Slice(const std::string& yaml) {
  return Decode(DecodeResourceSlice, yaml, "ResourceSlice \"s\"");
}

int Compare(const Quantity& q, const std::string& text) {
  auto parsed = ParseQuantity(text);
  EXPECT_TRUE(parsed.ok());
  return dra::CompareQuantities(q, *parsed);
}

const char kSlice[] = R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-1-gpus
spec:
  driver: gpu.example.com
  pool: {name: node-1, generation: 3, resourceSliceCount: 2}
  nodeName: node-1
  devices:
  - name: gpu-0
    attributes:
      model: {string: H100}
      cores: {int: 132}
      mig: {bool: true}
      driverVersion: {version: 1.2.3}
      vendor.example.com/family: {string: hopper}
    capacity:
      memory:
        value: 80Gi
        requestPolicy:
          default: 10Gi
          validRange: {min: 1Gi, max: 40Gi, step: 1Gi}
      cuda: {value: "4", requestPolicy: {validValues: ["1", "2", "4"]}}
    consumesCounters:
    - counterSet: gpu-0-cs
      counters: {memory: {value: 10Gi}}
    allowMultipleAllocations: true
  - name: gpu-1
  sharedCounters:
  - name: gpu-0-cs
    counters: {memory: {value: 80Gi}}
)";

// Setup: a v1 ResourceSlice with one fully described device and a bare one.
// Expected: driver, pool (node-1, generation 3, 2 slices), nodeName; bare
// names qualified with the driver (gpu.example.com/model), qualified names
// kept (vendor.example.com/family); capacity 80Gi with default 10Gi, range
// 1Gi..40Gi step 1Gi; validValues 1,2,4; counters; sharedCounters 80Gi; and
// the decoded device works with CEL.
TEST(DecodeDraTest, ResourceSlice) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(model::ResourceSlice s, Slice(kSlice));
  EXPECT_EQ(s.meta.name, "node-1-gpus");
  EXPECT_EQ(s.meta.source.line, 1);
  EXPECT_EQ(s.driver, "gpu.example.com");
  EXPECT_EQ(s.pool_name, "node-1");
  EXPECT_EQ(s.pool_generation, 3);
  EXPECT_EQ(s.pool_resource_slice_count, 2);
  EXPECT_EQ(s.node_name, "node-1");
  EXPECT_FALSE(s.all_nodes);
  ASSERT_EQ(s.devices.size(), 2u);
  const model::Device& d = s.devices[0];
  EXPECT_EQ(d.name, "gpu-0");
  ASSERT_EQ(d.attributes.size(), 5u);
  EXPECT_EQ(d.attributes.at("gpu.example.com/model").string_value, "H100");
  EXPECT_EQ(d.attributes.at("gpu.example.com/cores").int_value, 132);
  EXPECT_EQ(d.attributes.at("gpu.example.com/cores").type, model::DeviceAttribute::Type::kInt);
  EXPECT_TRUE(d.attributes.at("gpu.example.com/mig").bool_value);
  EXPECT_EQ(d.attributes.at("gpu.example.com/driverVersion").type, model::DeviceAttribute::Type::kVersion);
  EXPECT_EQ(d.attributes.at("vendor.example.com/family").string_value, "hopper");
  const model::DeviceCapacity& memory = d.capacity.at("gpu.example.com/memory");
  EXPECT_EQ(Compare(memory.value, "80Gi"), 0);
  EXPECT_EQ(Compare(*memory.default_value, "10Gi"), 0);
  EXPECT_EQ(Compare(*memory.range_min, "1Gi"), 0);
  EXPECT_EQ(Compare(*memory.range_max, "40Gi"), 0);
  EXPECT_EQ(Compare(*memory.range_step, "1Gi"), 0);
  EXPECT_EQ(d.capacity.at("gpu.example.com/cuda").valid_values.size(), 3u);
  ASSERT_EQ(d.consumes_counters.size(), 1u);
  EXPECT_EQ(d.consumes_counters[0].counter_set, "gpu-0-cs");
  EXPECT_EQ(Compare(d.consumes_counters[0].counters.at("memory"), "10Gi"), 0);
  EXPECT_TRUE(d.allow_multiple_allocations);
  EXPECT_TRUE(s.devices[1].attributes.empty());
  EXPECT_EQ(Compare(s.shared_counters.at("gpu-0-cs").at("memory"), "80Gi"), 0);

  auto expr = dra::CelExpression::Compile(
      "device.attributes[\"gpu.example.com\"].model == \"H100\" && "
      "device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"80Gi\")) == 0 && "
      "device.attributes[\"gpu.example.com\"].driverVersion.isGreaterThan(semver(\"1.0.0\"))");
  ASSERT_TRUE(expr.ok()) << expr.status();
  EXPECT_TRUE(expr->Matches(s.driver, d));
}

// Setup: the resource.k8s.io/v1beta1 layout (devices[].basic) with
// allNodes. Expected: read the same way.
TEST(DecodeDraTest, ResourceSliceV1beta1Basic) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(model::ResourceSlice s, Slice(R"(metadata: {name: s}
spec:
  driver: gpu.example.com
  pool: {name: p, generation: 0, resourceSliceCount: 1}
  allNodes: true
  devices:
  - name: gpu-0
    basic:
      attributes: {model: {string: A100}}
)"));
  EXPECT_TRUE(s.all_nodes);
  EXPECT_EQ(s.devices[0].attributes.at("gpu.example.com/model").string_value, "A100");
}

// Setup: invalid slices. Expected: InvalidArgument naming dra.yaml:<line>,
// ResourceSlice "s" and the field path.
TEST(DecodeDraTest, ResourceSliceErrors) {
  const std::string head =
      "metadata: {name: s}\nspec:\n  driver: gpu.example.com\n"
      "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n";
  EXPECT_THAT(
      Slice(head + "  nodeName: n\n  devices:\n  - name: gpu-0\n    attributes:\n"
                   "      model: {string: H100, int: 3}\n"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "dra.yaml:9: ResourceSlice \"s\": spec.devices[0].attributes.model: must set exactly one of "
               "int, bool, string, version, ints, bools, strings, versions"));
  EXPECT_THAT(Slice(head + "  nodeName: n\n  devices:\n  - name: gpu-0\n    attributes:\n"
                           "      numa: {ints: []}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("spec.devices[0].attributes.numa.ints: must not be empty")));
  EXPECT_THAT(Slice(head + "  nodeName: n\n  devices:\n  - name: gpu-0\n    attributes:\n"
                           "      numa: {ints: [0], int: 1}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must set exactly one of")));
  EXPECT_THAT(Slice(head + "  nodeName: n\n  devices:\n  - name: gpu-0\n    attributes:\n"
                           "      v: {versions: [\"1.0.0\", \"01.0.0\"]}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("spec.devices[0].attributes.v.versions[1]: \"01.0.0\" must be a semantic version")));
  EXPECT_THAT(Slice(head),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "dra.yaml:3: ResourceSlice \"s\": spec: must set exactly one of nodeName, "
                       "nodeSelector, allNodes, perDeviceNodeSelection"));
  EXPECT_THAT(Slice(head + "  nodeName: n\n  allNodes: true\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must set exactly one of nodeName")));
  EXPECT_THAT(
      Slice(head + "  nodeName: n\n  devices:\n  - name: gpu-0\n    attributes:\n"
                   "      v: {version: \"1.02.3\"}\n"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("spec.devices[0].attributes.v.version: \"1.02.3\" must be a semantic version")));
  EXPECT_THAT(
      Slice(head + "  nodeName: n\n  devices:\n  - name: gpu-0\n  - name: gpu-0\n"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "dra.yaml:8: ResourceSlice \"s\": spec.devices[1].name: duplicate device name \"gpu-0\""));
  EXPECT_THAT(
      Slice(head + "  nodeName: n\n  devices:\n  - name: gpu-0\n    capacity:\n      memory: {value: 12x}\n"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("spec.devices[0].capacity.memory.value: malformed quantity \"12x\"")));
  EXPECT_THAT(Slice(head + "  nodeName: n\n  devices:\n  - name: gpu-0\n    attributes:\n"
                           "      a/b/c: {int: 1}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("spec.devices[0].attributes.a/b/c:")));
  EXPECT_THAT(Slice(head + "  nodeName: n\n  devices:\n  - name: gpu-0\n    attributes:\n"
                           "      model: {string: a}\n      gpu.example.com/model: {string: b}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("duplicate attribute \"gpu.example.com/model\"")));
  EXPECT_THAT(Slice("metadata: {name: s}\nspec:\n  driver: gpu.example.com\n  nodeName: n\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "dra.yaml:3: ResourceSlice \"s\": spec.pool: is required"));
  EXPECT_THAT(Slice("metadata: {name: s}\nspec:\n  driver: GPU\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("spec.driver: \"GPU\" must be a lowercase DNS subdomain")));
  EXPECT_THAT(Slice(head + "  nodeName: n\n  devices:\n  - name: gpu-0\n    capacity:\n"
                           "      m: {value: 1, requestPolicy: {validValues: [1], validRange: {min: 1}}}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("requestPolicy: must not set both validValues and validRange")));
}

// Setup: a DeviceClass with two CEL selectors and an extendedResourceName.
// Expected: both expressions and the name; a selector without cel is an
// error naming spec.selectors[0].cel.
TEST(DecodeDraTest, DeviceClass) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(model::DeviceClass c, Decode(DecodeDeviceClass, R"(metadata:
  name: gpu.example.com
  creationTimestamp: "2025-01-02T03:04:05Z"
spec:
  selectors:
  - cel: {expression: device.driver == "gpu.example.com"}
  - cel:
      expression: |-
        device.attributes["gpu.example.com"].model in ["H100", "A100"]
  extendedResourceName: example.com/gpu
)"));
  EXPECT_EQ(c.meta.name, "gpu.example.com");
  EXPECT_TRUE(c.meta.creation_timestamp.has_value());
  EXPECT_THAT(c.selectors,
              ElementsAre("device.driver == \"gpu.example.com\"",
                          "device.attributes[\"gpu.example.com\"].model in [\"H100\", \"A100\"]"));
  EXPECT_EQ(c.extended_resource_name, "example.com/gpu");
  EXPECT_THAT(
      Decode(DecodeDeviceClass, "metadata: {name: c}\nspec:\n  selectors:\n  - {}\n", "DeviceClass \"c\""),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "dra.yaml:4: DeviceClass \"c\": spec.selectors[0].cel: is required (the only selector type)"));
}

// Setup: a template with an exact request (class, selector, count 2,
// adminAccess, capacity request), a request with defaults, an All request
// and a firstAvailable one. Expected: the fields; count defaults to 1 and
// allocationMode to ExactCount; firstAvailable records 2 alternatives.
TEST(DecodeDraTest, ResourceClaimTemplate) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(model::ResourceClaimTemplate t,
                                Decode(ClaimTemplate, R"(metadata:
  name: gpus
  namespace: team-a
spec:
  spec:
    devices:
      requests:
      - name: big
        exactly:
          deviceClassName: gpu.example.com
          selectors:
          - cel: {expression: 'device.attributes["gpu.example.com"].model == "H100"'}
          count: 2
          adminAccess: true
          capacity: {requests: {memory: 10Gi}}
      - name: one
        exactly: {deviceClassName: gpu.example.com}
      - name: all
        exactly: {deviceClassName: gpu.example.com, allocationMode: All}
      - name: any
        firstAvailable:
        - {name: a, deviceClassName: gpu.example.com}
        - {name: b, deviceClassName: mig.example.com}
)"));
  EXPECT_EQ(t.meta.namespace_, "team-a");
  ASSERT_EQ(t.requests.size(), 4u);
  EXPECT_TRUE(t.requests[0].exactly);
  EXPECT_EQ(t.requests[0].device_class_name, "gpu.example.com");
  EXPECT_THAT(t.requests[0].selectors,
              ElementsAre("device.attributes[\"gpu.example.com\"].model == \"H100\""));
  EXPECT_EQ(t.requests[0].count, 2);
  EXPECT_TRUE(t.requests[0].admin_access);
  EXPECT_EQ(Compare(t.requests[0].capacity_requests.at("memory"), "10Gi"), 0);
  EXPECT_EQ(t.requests[1].count, 1);
  EXPECT_EQ(t.requests[1].allocation_mode, "ExactCount");
  EXPECT_FALSE(t.requests[1].admin_access);
  EXPECT_EQ(t.requests[2].allocation_mode, "All");
  EXPECT_FALSE(t.requests[3].exactly);
  EXPECT_EQ(t.requests[3].first_available, 2);
}

// Setup: invalid requests. Expected: errors naming the request field.
TEST(DecodeDraTest, ResourceClaimTemplateErrors) {
  auto decode = [](const std::string& request) {
    return Decode(
        ClaimTemplate,
        "metadata: {name: t}\nspec:\n  spec:\n    devices:\n      requests:\n      - " + request + "\n",
        "ResourceClaimTemplate \"t\"");
  };
  EXPECT_THAT(
      decode("{name: r, exactly: {deviceClassName: c}, firstAvailable: [{name: a, deviceClassName: c}]}"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "dra.yaml:6: ResourceClaimTemplate \"t\": spec.spec.devices.requests[0]: must set exactly "
               "one of exactly, firstAvailable"));
  EXPECT_THAT(decode("{name: r, exactly: {deviceClassName: c, allocationMode: All, count: 2}}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("requests[0].exactly.count: must not be set when allocationMode is All")));
  EXPECT_THAT(decode("{name: r, exactly: {deviceClassName: c, count: -1}}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("requests[0].exactly.count: must be greater than zero")));
  EXPECT_THAT(decode("{name: r, exactly: {deviceClassName: c, allocationMode: Some}}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("exactly.allocationMode: unknown value \"Some\" (valid: ExactCount, All)")));
  EXPECT_THAT(
      decode("{name: r, exactly: {count: 1}}"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("exactly.deviceClassName: is required")));
  EXPECT_THAT(
      decode("{name: R, exactly: {deviceClassName: c}}"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("requests[0].name: must be a DNS label")));
}

// Setup: the design note's deviceClassMappings (device count, counter,
// capacity). Expected: three mappings with their sources.
TEST(DecodeDraTest, DeviceClassMappings) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(std::vector<model::DeviceClassMapping> m,
                                Decode(DecodeDeviceClassMappings, R"(deviceClassMappings:
- name: whole-gpus
  deviceClassNames: [gpu.example.com]
- name: gpu.memory
  deviceClassNames: [mig.nvidia.com]
  sources:
  - counter: {name: memory, driver: gpu.nvidia.com,
              deviceSelector: {cel: {expression: "device.driver == 'gpu.nvidia.com'"}}}
- name: shared-gpu-mem
  deviceClassNames: [gpu-share.example.com]
  sources:
  - capacity: {name: gpu.example.com/memory, driver: gpu.example.com,
               deviceSelector: {cel: {expression: "device.allowMultipleAllocations"}}}
)",
                                       "Configuration"));
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].name, "whole-gpus");
  EXPECT_THAT(m[0].device_class_names, ElementsAre("gpu.example.com"));
  EXPECT_TRUE(m[0].sources.empty());
  ASSERT_EQ(m[1].sources.size(), 1u);
  EXPECT_EQ(m[1].sources[0].kind, model::DeviceClassMappingSource::Kind::kCounter);
  EXPECT_EQ(m[1].sources[0].name, "memory");
  EXPECT_EQ(m[1].sources[0].driver, "gpu.nvidia.com");
  EXPECT_EQ(m[1].sources[0].device_selector, "device.driver == 'gpu.nvidia.com'");
  EXPECT_EQ(m[2].sources[0].kind, model::DeviceClassMappingSource::Kind::kCapacity);
  EXPECT_EQ(m[2].sources[0].name, "gpu.example.com/memory");

  EXPECT_THAT(
      Decode(DecodeDeviceClassMappings,
             "deviceClassMappings:\n- name: m\n  deviceClassNames: [c]\n  sources:\n  - {}\n",
             "Configuration"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "dra.yaml:5: Configuration: deviceClassMappings[0].sources[0]: exactly one source type must "
               "be set per entry (counter or capacity)"));
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto none,
                                Decode(DecodeDeviceClassMappings, "excludeResourcePrefixes: [x]\n"));
  EXPECT_TRUE(none.empty());
}

// Setup: a pod spec with a template claim and a claim by name. Expected:
// both kept; both names set or neither is an error.
TEST(DecodeDraTest, PodResourceClaims) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto claims, Decode(DecodePodResourceClaims, R"(resourceClaims:
- {name: gpus, resourceClaimTemplateName: two-gpus}
- {name: shared, resourceClaimName: shared-claim}
containers: []
)"));
  ASSERT_EQ(claims.size(), 2u);
  EXPECT_EQ(claims[0].name, "gpus");
  EXPECT_EQ(claims[0].resource_claim_template_name, "two-gpus");
  EXPECT_EQ(claims[1].resource_claim_name, "shared-claim");
  EXPECT_THAT(Decode(DecodePodResourceClaims,
                     "resourceClaims:\n- {name: x, resourceClaimName: a, "
                     "resourceClaimTemplateName: b}\n",
                     "Pod"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "dra.yaml:2: Pod: resourceClaims[0]: must set exactly one of resourceClaimName, "
                       "resourceClaimTemplateName"));
  EXPECT_THAT(Decode(DecodePodResourceClaims, "resourceClaims:\n- {name: x}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must set exactly one of")));
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto empty, Decode(DecodePodResourceClaims, "containers: []\n"));
  EXPECT_TRUE(empty.empty());
}


// Setup: `count: 0` on an ExactCount request and on an All request. Expected:
// as the API server reads an omitempty int64, 0 is the field left unset:
// ExactCount defaults to 1, All loads (no "must not be set").
TEST(DecodeDraTest, CountZeroIsUnset) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(model::ResourceClaimTemplate t, Decode(ClaimTemplate, R"(metadata: {name: t}
spec:
  spec:
    devices:
      requests:
      - {name: one, exactly: {deviceClassName: c, count: 0}}
      - {name: all, exactly: {deviceClassName: c, allocationMode: All, count: 0}}
)"));
  ASSERT_EQ(t.requests.size(), 2u);
  EXPECT_EQ(t.requests[0].count, 1);
  EXPECT_EQ(t.requests[1].allocation_mode, "All");
}

// Setup: a resource.k8s.io/v1beta1 template, whose requests carry the
// class, selectors, count and mode themselves, plus a firstAvailable one.
// Expected: the same requests as the v1 layout; a request with neither or
// both is an error naming the request.
TEST(DecodeDraTest, ResourceClaimTemplateV1beta1) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(model::ResourceClaimTemplate t, Decode(ClaimTemplateV1beta1, R"(metadata: {name: t}
spec:
  spec:
    devices:
      requests:
      - name: gpus
        deviceClassName: gpu.example.com
        selectors:
        - cel: {expression: 'device.driver == "gpu.example.com"'}
        count: 2
      - name: all
        deviceClassName: gpu.example.com
        allocationMode: All
      - name: any
        firstAvailable:
        - {name: a, deviceClassName: gpu.example.com}
)"));
  ASSERT_EQ(t.requests.size(), 3u);
  EXPECT_TRUE(t.requests[0].exactly);
  EXPECT_EQ(t.requests[0].device_class_name, "gpu.example.com");
  EXPECT_THAT(t.requests[0].selectors, ElementsAre("device.driver == \"gpu.example.com\""));
  EXPECT_EQ(t.requests[0].count, 2);
  EXPECT_EQ(t.requests[1].allocation_mode, "All");
  EXPECT_FALSE(t.requests[2].exactly);
  EXPECT_EQ(t.requests[2].first_available, 1);
  EXPECT_THAT(Decode(ClaimTemplateV1beta1,
                     "metadata: {name: t}\nspec:\n  spec:\n    devices:\n      requests:\n      - {name: r}\n",
                     "ResourceClaimTemplate \"t\""),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "dra.yaml:6: ResourceClaimTemplate \"t\": spec.spec.devices.requests[0]: must set exactly "
                       "one of deviceClassName, firstAvailable"));
}

// Setup: list-typed attributes (DRAListTypeAttributes: ints, bools,
// strings, versions). Expected: each loads as a list of its type.
TEST(DecodeDraTest, ListTypedAttributes) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(model::ResourceSlice s, Slice(R"(metadata: {name: s}
spec:
  driver: cpu.example.com
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  nodeName: n
  devices:
  - name: cpu-0
    attributes:
      resource.kubernetes.io/numaNode: {ints: [0, 1]}
      flags: {bools: [true, false]}
      roots: {strings: [pci0000:00, pci0000:80]}
      fw: {versions: ["1.2.3", "2.0.0"]}
)"));
  ASSERT_EQ(s.devices.size(), 1u);
  const auto& attributes = s.devices[0].attributes;
  const model::DeviceAttribute& numa = attributes.at("resource.kubernetes.io/numaNode");
  EXPECT_TRUE(numa.is_list);
  EXPECT_EQ(numa.type, model::DeviceAttribute::Type::kInt);
  EXPECT_THAT(numa.int_values, ElementsAre(0, 1));
  EXPECT_THAT(attributes.at("cpu.example.com/flags").bool_values, ElementsAre(true, false));
  EXPECT_THAT(attributes.at("cpu.example.com/roots").string_values, ElementsAre("pci0000:00", "pci0000:80"));
  EXPECT_EQ(attributes.at("cpu.example.com/fw").type, model::DeviceAttribute::Type::kVersion);
  EXPECT_THAT(attributes.at("cpu.example.com/fw").string_values, ElementsAre("1.2.3", "2.0.0"));
}

}  // namespace
}  // namespace kueuesim::scenario
