#pragma once
/// \file status.hpp
/// Result of every talus algorithm. Nothing in talus throws: a function that can fail
/// returns a Status, marked [[nodiscard]]. `ok` means every output is finite and right; any
/// other Status leaves the outputs zero (the few exceptions say so on the function).

namespace talus {

// clang-format 14 misreads `enum class [[nodiscard]]` (it would write `unsigned char{`).
// clang-format off
enum class [[nodiscard]] Status : unsigned char {
  ok = 0,
  invalid_input,      ///< NaN/Inf or a value beyond its documented range (check.hpp), unnormalised
                      ///< quaternion, id out of range, wrong size, an invalid model or constraint
  singular,           ///< a matrix that must be positive definite is not; redundant constraints
  not_converged,      ///< an iterative method reached its iteration cap
  capacity_exceeded,  ///< more rows or items than the fixed capacity
  overflow,           ///< inputs were valid but a result is not finite (extreme values, an
                      ///< ill-conditioned system): outputs zero instead of Inf/NaN
};
// clang-format on

/// Short English name of a Status, for logs ("ok", "invalid_input", ...).
constexpr const char* to_string(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::invalid_input: return "invalid_input";
    case Status::singular: return "singular";
    case Status::not_converged: return "not_converged";
    case Status::capacity_exceeded: return "capacity_exceeded";
    case Status::overflow: return "overflow";
  }
  return "unknown";
}

/// The evidence behind an `ok`: the residual of the accepted answer, in the norm and scaling
/// its solver documents, and the tolerance it was held to. On ok, 0 ≤ value ≤ tolerance
/// always (tolerance > 0); on failure both are as the solver left them (a check that failed:
/// value above tolerance or NaN; a failure before any answer was checked: both 0). Every
/// constrained, contact and cone solve reports one (docs/constraints.md, docs/contact.md),
/// so a firmware can log the pair beside the Status.
template <class S>
struct Residual {
  S value = S(0);      ///< residual of the answer (dimensionless unless the solver says otherwise)
  S tolerance = S(0);  ///< what value was judged against
};

}  // namespace talus
