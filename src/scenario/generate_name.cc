// Names for metadata.generateName; see generate_name.h.
#include "scenario/generate_name.h"

#include <utility>
#include <vector>

namespace kueuesim::scenario {
namespace {

// Kubernetes' utilrand alphabet (k8s.io/apimachinery/pkg/util/rand): no
// vowels, no 0/1/3 (no words, no look-alikes).
constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";

// Nodes hashed at most: a generated name must not cost more than reading
// a normal object, even for an object with huge aliases.
constexpr size_t kMaxHashedNodes = 100'000;

constexpr uint64_t kFnvOffset = 14695981039346656037ULL;
constexpr uint64_t kFnvPrime = 1099511628211ULL;

void HashBytes(uint64_t* h, std::string_view bytes) {
  for (unsigned char c : bytes) {
    *h ^= c;
    *h *= kFnvPrime;
  }
  // A separator, so that ("ab", "c") and ("a", "bc") differ.
  *h ^= 0xff;
  *h *= kFnvPrime;
}

void HashInt(uint64_t* h, int64_t value) {
  for (int i = 0; i < 8; ++i) {
    *h ^= static_cast<uint64_t>(value >> (8 * i)) & 0xff;
    *h *= kFnvPrime;
  }
}

uint64_t Mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

}  // namespace

std::string GenerateNameWithSeed(std::string_view prefix, uint64_t seed) {
  std::string name(prefix.substr(0, kMaxGeneratedNamePrefixLength));
  uint64_t x = Mix(seed);
  for (size_t i = 0; i < kGeneratedSuffixLength; ++i) {
    name.push_back(kAlphabet[x % kAlphabet.size()]);
    x /= kAlphabet.size();
  }
  return name;
}

uint64_t ObjectIdentityHash(const doc::Node& object) {
  uint64_t h = kFnvOffset;
  HashInt(&h, object.position().line);
  HashInt(&h, object.position().column);
  std::vector<doc::Node> stack = {object};
  size_t hashed = 0;
  while (!stack.empty() && hashed < kMaxHashedNodes) {
    doc::Node node = stack.back();
    stack.pop_back();
    ++hashed;
    if (!node.valid()) continue;
    HashInt(&h, static_cast<int64_t>(node.kind()));
    if (node.IsScalar()) {
      HashBytes(&h, node.scalar());
      continue;
    }
    HashInt(&h, static_cast<int64_t>(node.size()));
    // Children in reverse, so that they are hashed in document order.
    for (size_t i = node.size(); i-- > 0;) {
      stack.push_back(node.IsMapping() ? node.value(i) : node.at(i));
      if (node.IsMapping()) stack.push_back(node.key_node(i));
    }
  }
  return h;
}

std::optional<std::string> ObjectName(const doc::Node& object) {
  doc::Node metadata = object.Get("metadata");
  if (!metadata.IsMapping()) return std::nullopt;
  doc::Node name = metadata.Get("name");
  if (name.IsScalar() && !name.IsNull() && !name.scalar().empty()) return std::string(name.scalar());
  doc::Node prefix = metadata.Get("generateName");
  if (!prefix.IsScalar() || prefix.IsNull() || prefix.scalar().empty()) return std::nullopt;
  return GenerateNameWithSeed(prefix.scalar(), ObjectIdentityHash(object));
}

}  // namespace kueuesim::scenario
