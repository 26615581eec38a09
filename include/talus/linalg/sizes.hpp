#pragma once
/// \file sizes.hpp
/// Compile-time size traits of Eigen arguments, for the static_asserts at every public
/// function's entry (a wrong size is one line naming the function and the argument, not pages
/// of template errors): is_size, holds_size (outputs), fits (inputs), holds_rows_up_to
/// (outputs of a run-time row count). Internal (namespace detail).
#include <type_traits>

#include <Eigen/Core>

namespace talus {
namespace detail {
/// True when the Eigen type T is Rows × Cols at compile time.
template <class T, int Rows, int Cols = 1>
constexpr bool is_size() {
  using D = std::decay_t<T>;
  return int(D::RowsAtCompileTime) == Rows && int(D::ColsAtCompileTime) == Cols;
}
/// True when an output of type T can take a Rows × Cols result by assignment: T is that
/// size at compile time, or a resizable matrix (Eigen::Matrix with dynamic sizes; it is
/// resized, which allocates: firmware uses the fixed types). A Ref, Map or block of dynamic
/// size is refused: its size could only be checked at run time. Used by every public
/// function's static_assert on its outputs, so a wrong size is one line naming the
/// argument, not pages of template errors.
template <class T, int Rows, int Cols = 1>
constexpr bool holds_size() {
  using D = std::decay_t<T>;
  constexpr bool resizable = std::is_base_of_v<Eigen::PlainObjectBase<D>, D> &&
                             (int(D::RowsAtCompileTime) == Eigen::Dynamic || int(D::RowsAtCompileTime) == Rows) &&
                             (int(D::ColsAtCompileTime) == Eigen::Dynamic || int(D::ColsAtCompileTime) == Cols) &&
                             (int(D::MaxRowsAtCompileTime) == Eigen::Dynamic || int(D::MaxRowsAtCompileTime) >= Rows) &&
                             (int(D::MaxColsAtCompileTime) == Eigen::Dynamic || int(D::MaxColsAtCompileTime) >= Cols);
  return is_size<T, Rows, Cols>() || resizable;
}
/// True when an input of type T can be an N-vector: N × 1 at compile time, or of dynamic
/// size (then checked at run time). Public functions static_assert it at entry on each sized
/// input, with a message naming the function and the argument.
template <class T, int N>
constexpr bool fits() {
  using D = std::decay_t<T>;
  return (int(D::RowsAtCompileTime) == N || int(D::RowsAtCompileTime) == Eigen::Dynamic) &&
         (int(D::ColsAtCompileTime) == 1 || int(D::ColsAtCompileTime) == Eigen::Dynamic);
}
/// True when T is a resizable column vector that can take up to MaxRows rows (the active
/// rows of a ConstraintSet, known only at run time): Eigen::VectorXd, or the set's RowVector.
template <class T, int MaxRows>
constexpr bool holds_rows_up_to() {
  using D = std::decay_t<T>;
  return std::is_base_of_v<Eigen::PlainObjectBase<D>, D> && int(D::RowsAtCompileTime) == Eigen::Dynamic &&
         int(D::ColsAtCompileTime) == 1 &&
         (int(D::MaxRowsAtCompileTime) == Eigen::Dynamic || int(D::MaxRowsAtCompileTime) >= MaxRows);
}
}  // namespace detail
}  // namespace talus
