// An optional value kept on the heap: the size of one pointer when absent.
//
// For large members that most objects leave unset (a pod set's topology
// request: 256 bytes inline, set on a few pod sets of a topology-aware
// cluster and on none of a plain one). With tens of thousands of objects
// loaded at once, std::optional's inline storage is paid by every object;
// Boxed pays a pointer, and an allocation only where the value is set.
//
// Reads like std::optional (has_value, operator bool, *, ->, value_or,
// value, reset, emplace, == against another Boxed or std::nullopt), copies deeply,
// moves by taking the pointer, and converts from and to std::optional.
#ifndef KUEUESIM_BASE_BOXED_H_
#define KUEUESIM_BASE_BOXED_H_

#include <memory>
#include <optional>
#include <utility>

namespace kueuesim {

template <typename T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(std::nullopt_t) {}  // NOLINT(google-explicit-constructor): like std::optional
  Boxed(const T& value) : value_(std::make_unique<T>(value)) {}  // NOLINT(google-explicit-constructor)
  Boxed(T&& value) : value_(std::make_unique<T>(std::move(value))) {}  // NOLINT(google-explicit-constructor)
  Boxed(const std::optional<T>& value)  // NOLINT(google-explicit-constructor)
      : value_(value.has_value() ? std::make_unique<T>(*value) : nullptr) {}
  Boxed(std::optional<T>&& value)  // NOLINT(google-explicit-constructor)
      : value_(value.has_value() ? std::make_unique<T>(std::move(*value)) : nullptr) {}
  Boxed(const Boxed& other) : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
  Boxed(Boxed&& other) noexcept = default;
  Boxed& operator=(const Boxed& other) {
    if (this != &other) value_ = other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&& other) noexcept = default;
  Boxed& operator=(std::nullopt_t) {
    value_.reset();
    return *this;
  }
  Boxed& operator=(const std::optional<T>& value) { return *this = Boxed(value); }
  Boxed& operator=(std::optional<T>&& value) { return *this = Boxed(std::move(value)); }
  Boxed& operator=(const T& value) { return *this = Boxed(value); }
  Boxed& operator=(T&& value) { return *this = Boxed(std::move(value)); }
  ~Boxed() = default;

  bool has_value() const { return value_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return value_.get(); }
  const T* operator->() const { return value_.get(); }
  // Throws std::bad_optional_access when empty, as std::optional does.
  T& value() {
    if (!has_value()) throw std::bad_optional_access();
    return *value_;
  }
  const T& value() const {
    if (!has_value()) throw std::bad_optional_access();
    return *value_;
  }
  template <typename U>
  T value_or(U&& fallback) const {
    return has_value() ? *value_ : static_cast<T>(std::forward<U>(fallback));
  }
  void reset() { value_.reset(); }
  template <typename... Args>
  T& emplace(Args&&... args) {
    value_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *value_;
  }
  // A copy as a std::optional (for code that keeps its own).
  std::optional<T> ToOptional() const { return has_value() ? std::optional<T>(*value_) : std::nullopt; }

  friend bool operator==(const Boxed& a, const Boxed& b) {
    if (a.has_value() != b.has_value()) return false;
    return !a.has_value() || *a == *b;
  }
  friend bool operator==(const Boxed& a, std::nullopt_t) { return !a.has_value(); }

 private:
  std::unique_ptr<T> value_;
};


// Members that most objects leave at their defaults, kept together on the
// heap: the size of one pointer until one of them is written.
//
// Unlike Boxed, a LazyBox always reads as a T: `box->member` and `*box`
// give the members' defaults (a shared default T) while nothing has been
// written, so readers need not ask whether it is there. Writes go through
// `Mutable()`, which makes the box's own T on first use. A struct of rare
// members (a record's eviction history, a pod set's affinity and
// tolerations) put in one LazyBox costs a pointer on every object and an
// allocation only on the objects that set one of them.
//
// Copies deeply, moves by taking the pointer; equal when the values are
// (an empty box equals a box holding a default T).
template <typename T>
class LazyBox {
 public:
  LazyBox() = default;
  LazyBox(const LazyBox& other) : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
  LazyBox(LazyBox&& other) noexcept = default;
  LazyBox& operator=(const LazyBox& other) {
    if (this != &other) value_ = other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
    return *this;
  }
  LazyBox& operator=(LazyBox&& other) noexcept = default;
  ~LazyBox() = default;

  const T& operator*() const { return value_ ? *value_ : Default(); }
  const T* operator->() const { return &**this; }
  // The box's own value, made (default) on first use.
  T& Mutable() {
    if (!value_) value_ = std::make_unique<T>();
    return *value_;
  }
  // Whether a value was made (by Mutable); it may still equal the default.
  bool allocated() const { return value_ != nullptr; }
  // Back to the defaults, freeing the value.
  void reset() { value_.reset(); }

  friend bool operator==(const LazyBox& a, const LazyBox& b) { return *a == *b; }

 private:
  static const T& Default() {
    static const T* const kDefault = new T();
    return *kDefault;
  }
  std::unique_ptr<T> value_;
};

}  // namespace kueuesim

#endif  // KUEUESIM_BASE_BOXED_H_
