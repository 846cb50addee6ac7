// Reading YAML and JSON streams into Documents, safely and fast.
//
// Accepts what `kubectl get -o yaml` and `-o json` print and what people
// write by hand: multi-document YAML ("---"), JSON (a JSON text is read as
// YAML flow syntax), anchors, aliases and merge keys ("<<"). Refuses, with a
// clear error naming the file, line and column, and in bounded time and
// memory:
//   - syntax errors and truncated input;
//   - nesting deeper than ReadOptions::max_depth;
//   - alias expansion beyond ReadOptions::max_expanded_nodes (a "billion
//     laughs" stream);
//   - duplicate keys in one mapping;
//   - non-scalar mapping keys;
//   - bytes that are not UTF-8 text (e.g. random binary data).
#ifndef KUEUESIM_DOC_READER_H_
#define KUEUESIM_DOC_READER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kueuesim/doc/document.h"

namespace kueuesim::doc {

struct ReadOptions {
  // Deepest nesting of sequences and mappings accepted. Default: 256.
  int max_depth = 256;
  // Largest number of nodes a document may expand to when every alias is
  // counted as a copy of its anchor. Default: 20 million.
  int64_t max_expanded_nodes = 20'000'000;
  // Deliver each element of a document's top-level "items" sequence (what
  // `kubectl get -o yaml|json` prints: a List) as a document of its own, as
  // soon as it is read, so that a List of any length is never held whole.
  // Item documents come first, in order (Document::list_item() is 0, 1, ...;
  // index() is the List's), then the enclosing document, whose "items" is an
  // empty sequence and whose Document::split_items() counts what was
  // delivered. An alias in an item to an anchor outside that item (or from
  // the enclosing document into an item) is refused with an error, since the
  // item is no longer in memory. Default: off (every document whole).
  bool split_list_items = false;
  // Read a stream that starts with "{" or "[" (what `kubectl -o json`
  // prints) with simdjson first, falling back to libyaml, which reads every
  // other stream, for anything that is not plain JSON; the Documents and
  // every error message are the same either way (src/doc/json_fast_path.h).
  // Off only to compare the two paths. Default: on.
  bool json_fast_path = true;
};

// Called once per document, in stream order. Returning a non-OK status stops
// the read and is returned by the reader unchanged.
using DocumentCallback = std::function<absl::Status(Document&&)>;

// Streams the documents of the file at `path` to `callback`; only one
// document is held in memory at a time. Errors: NotFound / PermissionDenied
// when the file cannot be opened, InvalidArgument for malformed content, all
// prefixed "<path>:<line>:<column>: ".
absl::Status ReadFile(const std::string& path, const DocumentCallback& callback,
                      const ReadOptions& options = {});

// As ReadFile, over text in memory; `display_name` stands for the file name
// in positions and messages.
absl::Status ReadString(std::string_view text, const std::string& display_name,
                        const DocumentCallback& callback, const ReadOptions& options = {});

// Convenience: every document of a file or string, collected. Empty documents
// (a stream of only comments, or "---" with nothing after it) are skipped.
absl::StatusOr<std::vector<Document>> ReadAllFromFile(const std::string& path,
                                                      const ReadOptions& options = {});
absl::StatusOr<std::vector<Document>> ReadAllFromString(std::string_view text,
                                                        const std::string& display_name,
                                                        const ReadOptions& options = {});

// Reads `text` as exactly one JSON text (RFC 8259) through the JSON fast
// path alone, for inputs that are JSON by definition (a JSON Lines trace's
// rows): the Document is the one ReadString would give, but YAML flow
// syntax, duplicate keys, a second value and anything else the fast path
// leaves to libyaml are refused with InvalidArgument "<display_name>: not
// plain JSON". Small texts reuse the calling thread's simdjson parser.
absl::StatusOr<Document> ReadJsonText(std::string_view text, const std::string& display_name,
                                      const ReadOptions& options = {});

}  // namespace kueuesim::doc

#endif  // KUEUESIM_DOC_READER_H_
