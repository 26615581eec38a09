#pragma once
/// \file status.hpp
/// Result of every talus algorithm. Nothing in talus throws: a function that can fail
/// returns a Status, marked [[nodiscard]], and leaves its outputs defined (zeroed or
/// unchanged as documented on the function) when it is not `ok`.

namespace talus {

enum class [[nodiscard]] Status : unsigned char {
  ok = 0,
  invalid_input,      ///< NaN/Inf in an input, unnormalised quaternion, id out of range
  singular,           ///< a matrix that must be positive definite is not
  not_converged,      ///< an iterative method reached its iteration cap
  capacity_exceeded,  ///< more rows or items than the fixed capacity
};

/// Short English name of a Status, for logs ("ok", "invalid_input", ...).
constexpr const char* to_string(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::invalid_input: return "invalid_input";
    case Status::singular: return "singular";
    case Status::not_converged: return "not_converged";
    case Status::capacity_exceeded: return "capacity_exceeded";
  }
  return "unknown";
}

}  // namespace talus
