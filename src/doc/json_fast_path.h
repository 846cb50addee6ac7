// The JSON fast path of the document reader (private to src/doc).
//
// A stream whose first character is "{" or "[" is tried as one JSON text with
// simdjson's On-Demand parser before libyaml is used. The fast path builds
// exactly the Documents libyaml's path builds (same nodes, positions, styles,
// List items split the same way) and never reports an error itself: on
// anything it does not accept (a syntax error, trailing content, YAML that
// merely looks like JSON, a duplicate key, nesting or size over the limits)
// it says how many documents it already delivered, and the reader reads the
// stream again with libyaml, skipping those, so every error message is
// libyaml's path's, word for word.
#ifndef KUEUESIM_SRC_DOC_JSON_FAST_PATH_H_
#define KUEUESIM_SRC_DOC_JSON_FAST_PATH_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "kueuesim/doc/reader.h"

namespace kueuesim::doc::internal {

// Bytes that must be readable (any value) after the text given to
// ReadJsonFast.
inline constexpr size_t kJsonPadding = 64;

// Whether `text` starts, after JSON whitespace, with "{" or "[".
bool StartsLikeJson(std::string_view text);

struct FastJsonResult {
  // True when the fast path gave up; `delivered` documents were already
  // handed to the callback.
  bool fell_back = false;
  int64_t delivered = 0;
  // When !fell_back: OK, or the callback's error, returned unchanged.
  absl::Status status;
};

// Told, after a document is delivered, how many leading bytes of the text
// will not be read again (the reader then drops a mapped file's pages).
using ConsumedCallback = std::function<void(size_t bytes)>;

// Reads `text` (followed by kJsonPadding readable bytes) as one JSON text.
FastJsonResult ReadJsonFast(std::string_view text, const std::shared_ptr<const std::string>& file,
                            const DocumentCallback& callback, const ReadOptions& options,
                            const ConsumedCallback& consumed = nullptr);

}  // namespace kueuesim::doc::internal

#endif  // KUEUESIM_SRC_DOC_JSON_FAST_PATH_H_
