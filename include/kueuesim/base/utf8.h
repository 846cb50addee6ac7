// UTF-8 encoding of one code point: the JSON readers' \u escapes and CEL's
// string functions.
#ifndef KUEUESIM_BASE_UTF8_H_
#define KUEUESIM_BASE_UTF8_H_

#include <cstdint>
#include <string>

namespace kueuesim {

// Appends the UTF-8 encoding of `code_point` (at most U+10FFFF; callers
// have already refused surrogates) to `out`.
void AppendUtf8(uint32_t code_point, std::string& out);

}  // namespace kueuesim

#endif  // KUEUESIM_BASE_UTF8_H_
