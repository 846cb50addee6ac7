// metadata.generateName: the name the API server would give an object
// created without metadata.name (Kubernetes
// staging/src/k8s.io/apiserver/pkg/storage/names/generate.go): the prefix,
// cut to 58 characters, followed by 5 characters of Kubernetes' alphabet
// "bcdfghjklmnpqrstvwxz2456789".
//
// Kubernetes draws the suffix at random; kueuesim derives it from the
// object itself, so that the same input gives the same names on every run:
// a hash of the object's content (every key and scalar, in order) and of its
// line and column in its file (two identical objects in one file differ by
// position). The file's name is not part of it: renaming or moving a file
// keeps its objects' names. Two objects that still get the same name are a
// duplicate, reported as for any other duplicate name.
#ifndef KUEUESIM_SCENARIO_GENERATE_NAME_H_
#define KUEUESIM_SCENARIO_GENERATE_NAME_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "kueuesim/doc/document.h"

namespace kueuesim::scenario {

// Kubernetes' names.SimpleNameGenerator constants.
inline constexpr size_t kGeneratedSuffixLength = 5;
inline constexpr size_t kMaxGeneratedNamePrefixLength = 63 - kGeneratedSuffixLength;

// `prefix` (cut to kMaxGeneratedNamePrefixLength) followed by a 5-character
// suffix drawn from `seed`.
std::string GenerateNameWithSeed(std::string_view prefix, uint64_t seed);

// A stable hash of `object` (keys, scalars and structure) and its position.
uint64_t ObjectIdentityHash(const doc::Node& object);

// The name of a manifest object: metadata.name when it is a non-empty
// scalar, else the name generated from a non-empty metadata.generateName,
// else nullopt.
std::optional<std::string> ObjectName(const doc::Node& object);

}  // namespace kueuesim::scenario

#endif  // KUEUESIM_SCENARIO_GENERATE_NAME_H_
