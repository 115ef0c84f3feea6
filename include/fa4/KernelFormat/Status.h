//===- Status.h - Runtime errors --------------------------------*- C++ -*-===//
//
// The error values of the fa4 runtime. Every public runtime function reports
// failure by returning a `Status` (success, or a lower-case message that names
// the call, the numbers and what was being done) or an `Expected<T>` (a value
// or such a message); no exception crosses the runtime API.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_KERNELFORMAT_STATUS_H
#define FA4_KERNELFORMAT_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace fa4::runtime {

/// The outcome of an operation without a result: success, or failure with a
/// message.
class [[nodiscard]] Status {
public:
  /// A successful outcome.
  static Status success() { return Status(); }

  /// A failure carrying `message`.
  static Status error(std::string message) {
    Status status;
    status.failed = true;
    status.text = std::move(message);
    return status;
  }

  /// Whether the operation succeeded.
  bool ok() const { return !failed; }

  /// The failure message; empty on success.
  const std::string &message() const { return text; }

private:
  Status() = default;

  bool failed = false;
  std::string text;
};

/// The outcome of an operation with a result: a `T`, or a failed `Status`.
template <typename T> class [[nodiscard]] Expected {
public:
  /// A successful outcome holding `value`.
  Expected(T value) : value(std::move(value)) {}

  /// A failed outcome; `error` must not be a success.
  Expected(Status error) : error(std::move(error)) {
    assert(!this->error.ok() && "an Expected needs a value or a failure");
  }

  /// Whether a value is held.
  bool ok() const { return value.has_value(); }

  /// The failure; a success when a value is held.
  const Status &status() const { return error; }

  /// The held value; only valid when `ok()`.
  T &operator*() {
    assert(ok() && "no value in a failed Expected");
    return *value;
  }
  const T &operator*() const {
    assert(ok() && "no value in a failed Expected");
    return *value;
  }
  T *operator->() { return &**this; }
  const T *operator->() const { return &**this; }

  /// Moves the held value out; only valid when `ok()`.
  T take() { return std::move(**this); }

private:
  std::optional<T> value;
  Status error = Status::success();
};

} // namespace fa4::runtime

#endif // FA4_KERNELFORMAT_STATUS_H
